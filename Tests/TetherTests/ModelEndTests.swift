import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import Tether
import TetherTestSupport

/// Hands one model to two threads for the test below: one drops it while the other disposes
/// its subscriptions.
///
/// Why `@unchecked Sendable` is safe: `model` is set before the two threads start (which
/// orders it before them), then only one of them touches it, once, to let the model go; what
/// the test races is the model's end against disposables, which are `Sendable`.
private final class Handoff: @unchecked Sendable {
    var model: Stock?
    init(_ model: Stock) { self.model = model }
}

/// What is left of a model's observers once the model is freed: the disposables the subscribers
/// still hold. They hold none of the subscribers' closures, and disposing them, on any thread,
/// changes nothing.
@Suite("Model ends")
struct ModelEndTests {
    @Test func aSubscriptionKeptAfterItsModelIsFreedHoldsNothingAndDisposesHarmlessly() {
        let closuresFreed = Flag()
        let completed = Flag()
        var model: Stock? = Stock()
        var witness: Witness? = Witness(closuresFreed)
        let seen = Recorder<Int, Never>()
        let subscription = observe(model!, \.count).subscribe(
            next: { [witness] in _ = witness; seen.append(.next($0)) },
            completed: { completed.set() })
        let computed = observe(model!, \.available).subscribe(next: { [witness] in _ = witness; seen.append(.next($0 * 100)) })
        witness = nil
        model!.count = 2
        model = nil
        #expect(completed.isSet, "the model's end completes its subscriptions")
        #expect(closuresFreed.isSet, "the subscribers' closures are released with the model, not with the disposables")
        #expect(seen.values == [0, 0, 2, 200])
        subscription.dispose()
        computed.dispose()
        #expect(subscription.isDisposed && computed.isDisposed)
    }

    /// A model freed on one thread while another disposes its subscriptions (each round, the
    /// two threads start together). Nothing crashes, and every subscriber's closures are
    /// released. Seeded: the seed picks how many observers each round has and which thread
    /// lets go first; `TETHER_SEED` replays one seed.
    @Test func aModelFreedOnOneThreadWhileAnotherDisposesItsSubscriptions() {
        let seed = getenv("TETHER_SEED").flatMap { UInt64(String(cString: $0)) } ?? 7
        var random = SeededRandom(seed: seed)
        for round in 0..<400 {
            let observers = random.within(1...4)
            let modelFirst = random.chance(50)
            let freed = (0..<observers).map { _ in Flag() }
            let model = Stock()
            let subscriptions: [any Disposable] = freed.map { flag in
                let witness = Witness(flag)
                return observe(model, \.count).subscribe(next: { _ in _ = witness })
            }
            let handoff = Handoff(consume model)
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if (side == 0) == modelFirst {
                    handoff.model = nil
                } else {
                    for subscription in subscriptions { subscription.dispose() }
                }
            }
            #expect(freed.allSatisfy { $0.isSet }, "seed \(seed), round \(round): a subscriber's closures are still held")
            #expect(subscriptions.allSatisfy { $0.isDisposed })
        }
    }
}
