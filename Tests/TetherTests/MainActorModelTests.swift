import Foundation
import Testing
import Tether

/// A view model isolated to the main actor: the compiler checks every use of its properties.
@MainActor @Model
final class CartViewModel {
    var quantity = 1
    var unitPrice = 2.5
    var title = ""
    var total: Double { Double(quantity) * unitPrice }
}

@Suite("A model isolated to the main actor")
@MainActor
struct MainActorModelTests {
    /// Observing, binding and a channel, with closures that capture main-actor state.
    @Test func observesBindsAndCollectsOnTheMainActor() {
        let cart = CartViewModel()
        var totals: [Double] = []
        var titles: [String] = []
        let totalsSubscription = observe(cart, \.total).sink { totals.append($0) }
        let titlesSubscription = observe(cart, \.title).sink { titles.append($0) }
        let quantities = Subject<Int, Never>()
        let binding = bind(quantities.signal, to: cart, \.quantity)
        quantities.sendNext(2)
        cart.unitPrice = 3
        quantities.sendNext(4)

        let field = Channel<String>()
        var shown: [String] = []
        let shownSubscription = field.leading.signal.sink { shown.append($0) }
        let link = Tether.bind(channel(cart, \.title), field.following)
        field.leading.sendNext("Cart")
        cart.title = "Basket"

        #expect(totals == [2.5, 5, 6, 12])
        #expect(titles == ["", "Cart", "Basket"])
        #expect(shown == ["", "Basket"], "the field shows the model's title, not its own edit echoed")
        for disposable in [totalsSubscription, titlesSubscription, binding, link, shownSubscription] { disposable.dispose() }
    }

    /// Values sent on another thread reach a main-actor `sink` on the main actor, in order.
    @Test func aSinkOnTheMainActorReceivesValuesFromAnotherThread() async {
        let cart = CartViewModel()
        let quantities = Subject<Int, Never>()
        var seen: [Int] = []
        let arrived = AsyncStream<Void>.makeStream()
        let subscription = quantities.signal.sink { value in
            MainActor.preconditionIsolated()
            cart.quantity = value
            seen.append(cart.quantity)
            if seen.count == 3 { arrived.continuation.finish() }
        }
        Thread {
            for value in [5, 6, 7] { quantities.sendNext(value) }
        }.start()
        for await _ in arrived.stream {}
        #expect(seen == [5, 6, 7])
        #expect(cart.total == 17.5)
        subscription.dispose()
    }

    /// A task that iterates a property's values, started from the main actor, runs on the main
    /// actor, where the model belongs (a plain `@Model` made here belongs to the main actor).
    @Test func aTaskIteratesAPropertysValues() async {
        let stock = Stock()
        let started = AsyncStream<Void>.makeStream()
        let reader = Task {
            var seen: [Int] = []
            for await count in observe(stock, \.count).values {
                seen.append(count)
                if seen.count == 1 { started.continuation.yield() }   // subscribed
                if count == 3 { break }
            }
            return seen
        }
        for await _ in started.stream { break }
        for count in 1...3 { stock.count = count }   // buffered while the loop waits
        #expect(await reader.value == [0, 1, 2, 3])
    }

    /// A signal of a main-actor model subscribed off the main actor stops the process with a
    /// message: the one use the compiler cannot see (the signal is `Sendable`).
    @Test func subscribingOffTheMainActorStopsTheProcess() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (cart, quantities) = await MainActor.run {
                let cart = CartViewModel()
                return (cart, observe(cart, \.quantity))
            }
            await Task.detached { _ = quantities.subscribe(next: { _ in }) }.value
            withExtendedLifetime(cart) {}
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("the model belongs to the main actor"))
    }
}
