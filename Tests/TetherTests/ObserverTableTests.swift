import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import Tether
import TetherTestSupport

/// A seeded generator that closures can share (the test that uses it runs on one thread).
private final class LockedRandom: Sendable {
    private let generator: Mutex<SeededRandom>
    init(seed: UInt64) { generator = Mutex(SeededRandom(seed: seed)) }
    func below(_ bound: Int) -> Int { generator.withLock { $0.below(bound) } }
    func within(_ range: ClosedRange<Int>) -> Int { generator.withLock { $0.within(range) } }
}

/// A view model that keeps its own subscription, whose closure holds the view model strongly
/// (a cycle while subscribed, as in an app that forgets `[weak self]`).
private final class StockScreen: @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: the test touches it on one thread only.
    var subscription: (any Disposable)?
    var shown: [Int] = []
    let freed: Flag
    init(_ stock: Stock, freed: Flag) {
        self.freed = freed
        subscription = observe(stock, \.count).subscribe(next: { self.shown.append($0) })
    }
    deinit { freed.set() }
}

/// A model's observers as the registrar keeps them, one table per model: who is told of what,
/// in which order, and what a disposed subscription still holds.
@Suite("Observer table")
struct ObserverTableTests {
    @Test func aDisposedSubscriptionThatIsKeptHoldsNoneOfItsClosures() {
        let stock = Stock()
        let flags = (0..<5).map { _ in Flag() }
        var witnesses: [Witness]? = flags.map(Witness.init)
        let subscriptions: [any Disposable] = [
            observe(stock, \.count).subscribe(next: { [witness = witnesses![0]] _ in _ = witness }),
            observe(stock, \.count).subscribe(next: { [witness = witnesses![1]] _ in _ = witness }, completed: {}),
            observe(stock, \.count).map { $0 * 2 }.subscribe(next: { [witness = witnesses![2]] _ in _ = witness }),
            observe(stock, \.available).subscribe(next: { [witness = witnesses![3]] _ in _ = witness }),
            changes(of: stock).subscribe(next: { [witness = witnesses![4]] _ in _ = witness }),
        ]
        witnesses = nil
        stock.count = 1
        #expect(!flags.contains { $0.isSet }, "subscribed: the closures are held")
        for subscription in subscriptions { subscription.dispose() }
        #expect(flags.map(\.isSet) == [true, true, true, true, true], "disposed on the owner: released at once")
        #expect(subscriptions.allSatisfy { $0.isDisposed })
        stock.count = 2
        withExtendedLifetime(stock) {}
    }

    @Test func aSubscriptionDisposedOnAnotherThreadLetsGoOfItsClosureAtTheOwnersNextWrite() {
        let stock = Stock()
        let freed = Flag()
        var witness: Witness? = Witness(freed)
        let seen = Recorder<Int, Never>()
        let subscription = observe(stock, \.count).subscribe(next: { [witness] in _ = witness; seen.append(.next($0)) })
        witness = nil
        stock.count = 1
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {   // never on the calling thread
            subscription.dispose()
            done.signal()
        }
        done.wait()
        #expect(subscription.isDisposed)
        #expect(stock._$registrar.observerCount(index: 0) == 0)
        stock.count = 2
        #expect(freed.isSet, "released by the owner's next write")
        #expect(seen.values == [0, 1], "nothing after the disposal")
        withExtendedLifetime(subscription) {}
    }

    @Test func aViewModelThatHoldsItsOwnSubscriptionIsFreedOnceItDisposesIt() {
        let stock = Stock()
        let freed = Flag()
        var screen: StockScreen? = StockScreen(stock, freed: freed)
        stock.count = 4
        #expect(screen?.shown == [0, 4])
        screen?.subscription?.dispose()
        screen = nil
        #expect(freed.isSet, "the disposed subscription no longer holds the view model")
    }

    @Test func observingAStoredPropertyGivesTheModelNoSideTable() {
        let stock = Stock()
        let signal = observe(stock, \.count)
        let subscription = signal.subscribe(next: { _ in })
        #expect(!hasSideTable(stock), "the signal holds the model without a weak reference")
        subscription.dispose()
    }

    @Test func aSignalKeptAfterItsModelIsFreedCompletesItsSubscribers() {
        var stock: Stock? = Stock()
        let signal = observe(stock!, \.count)
        stock = nil
        let completed = Flag()
        let seen = Recorder<Int, Never>()
        let subscription = signal.subscribe(next: { seen.append(.next($0)) }, completed: { completed.set() })
        #expect(completed.isSet && seen.values.isEmpty)
        #expect(subscription.isDisposed)
    }

    /// Observers of a model's properties and of every property come and go in a seeded
    /// order (some disposed on another thread), between writes. Every observer's whole history
    /// is compared with what it should have been told: each write reaches the property's live
    /// observers in the order they subscribed, then the live observers of every property.
    /// `TETHER_SEED` replays one seed.
    @Test func observersComeAndGoInASeededOrderAndEachIsToldExactlyItsChanges() {
        let seed = getenv("TETHER_SEED").flatMap { UInt64(String(cString: $0)) } ?? 11
        var random = SeededRandom(seed: seed)
        let names = ["count", "reserved"]
        for round in 0..<60 {
            let stock = Stock()
            let log = Recorder<String, Never>()
            var expected: [String] = []
            // id, property (nil: every property), disposable
            var live: [(id: Int, property: Int?, subscription: any Disposable)] = []
            var next = 0
            for _ in 0..<random.within(1...120) {
                switch random.below(10) {
                case 0...2:
                    let id = next
                    next += 1
                    let property = random.chance(25) ? nil : random.below(2)
                    let subscription: any Disposable
                    switch property {
                    case 0?:
                        subscription = observe(stock, \.count).subscribe(next: { log.append(.next("\(id):\($0)")) })
                        expected.append("\(id):\(stock.count)")
                    case 1?:
                        subscription = observe(stock, \.reserved).subscribe(next: { log.append(.next("\(id):\($0)")) })
                        expected.append("\(id):\(stock.reserved)")
                    default:
                        subscription = changes(of: stock).subscribe(next: { log.append(.next("\(id):\($0.name)")) })
                    }
                    live.append((id, property, subscription))
                case 3...4 where !live.isEmpty:
                    let gone = live.remove(at: random.below(live.count))
                    if random.chance(30) {
                        let done = DispatchSemaphore(value: 0)
                        let subscription = gone.subscription
                        DispatchQueue.global().async {
                            subscription.dispose()
                            done.signal()
                        }
                        done.wait()
                    } else {
                        gone.subscription.dispose()
                    }
                default:
                    let property = random.below(2)
                    let value = random.below(1_000) + 1
                    let old = property == 0 ? stock.count : stock.reserved
                    if property == 0 { stock.count = value } else { stock.reserved = value }
                    guard value != old else { break }
                    for observer in live where observer.property == property { expected.append("\(observer.id):\(value)") }
                    for observer in live where observer.property == nil { expected.append("\(observer.id):\(names[property])") }
                }
            }
            #expect(log.values == expected, "seed \(seed), round \(round)")
            for observer in live {
                #expect(!observer.subscription.isDisposed, "seed \(seed), round \(round)")
                observer.subscription.dispose()
            }
            #expect(stock._$registrar.observerCount(index: 0) == 0 && stock._$registrar.observerCount(index: nil) == 0)
        }
    }

    /// Observers that, while they are being told of a change, write the model, subscribe new
    /// observers and dispose others (seeded). Nested deliveries replace the owner's view while
    /// an outer one still calls the old one. Checked afterwards: nothing reaches an observer
    /// after its `dispose()` returned, every live observer's last value is its property's
    /// current value, and once all are disposed every subscriber's closure is released.
    /// `TETHER_SEED` replays one seed.
    @Test func observersThatWriteSubscribeAndDisposeWhileTheyAreToldKeepEveryoneInStep() {
        let seed = getenv("TETHER_SEED").flatMap { UInt64(String(cString: $0)) } ?? 13
        for round in 0..<40 {
            let random = LockedRandom(seed: seed &* 1_000 &+ UInt64(round))
            let late = Flag()   // a value reached an observer after its disposal
            final class Entry: @unchecked Sendable {
                // Why `@unchecked Sendable` is safe: the test runs on one thread.
                let property: Int
                var subscription: (any Disposable)?
                var last: Int?
                var reactions = 3
                let disposed = Flag()
                let freed = Flag()
                init(property: Int) { self.property = property }
            }
            final class Entries: @unchecked Sendable {
                // Why `@unchecked Sendable` is safe: the test runs on one thread (the model's).
                let stock = Stock()
                var all: [Entry] = []
                var live: [Entry] { all.filter { !$0.disposed.isSet } }
            }
            let entries = Entries()
            let stock = entries.stock
            @Sendable func dispose(_ entry: Entry) {
                entry.subscription?.dispose()
                entry.disposed.set()
            }
            @Sendable func write(_ property: Int) {
                let value = random.below(50)
                if property == 0 { entries.stock.count = value } else { entries.stock.reserved = value }
            }
            @Sendable func subscribe(_ property: Int) {
                let entry = Entry(property: property)
                let witness = Witness(entry.freed)
                let next: @Sendable (Int) -> Void = { [witness] value in
                    _ = witness
                    if entry.disposed.isSet { late.set() }
                    entry.last = value
                    guard entry.reactions > 0 else { return }
                    entry.reactions -= 1
                    switch random.below(6) {
                    case 0: write(random.below(2))
                    case 1: subscribe(random.below(2))
                    case 2:
                        let live = entries.live
                        if !live.isEmpty { dispose(live[random.below(live.count)]) }
                    default: break
                    }
                }
                entry.subscription = property == 0
                    ? observe(entries.stock, \.count).subscribe(next: next)
                    : observe(entries.stock, \.reserved).subscribe(next: next)
                // Listed once subscribed: a reaction to the first value disposes only others.
                entries.all.append(entry)
            }
            for _ in 0..<random.within(20...80) {
                switch random.below(4) {
                case 0: subscribe(random.below(2))
                case 1:
                    let live = entries.live
                    if !live.isEmpty { dispose(live[random.below(live.count)]) }
                default: write(random.below(2))
                }
            }
            #expect(!late.isSet, "seed \(seed), round \(round): a value after dispose() returned")
            for entry in entries.live {
                #expect(entry.last == (entry.property == 0 ? stock.count : stock.reserved), "seed \(seed), round \(round)")
            }
            for entry in entries.live { dispose(entry) }
            for entry in entries.all { entry.subscription = nil }
            stock.count += 1
            #expect(entries.all.allSatisfy { $0.freed.isSet }, "seed \(seed), round \(round): a closure still held")
        }
    }
}
