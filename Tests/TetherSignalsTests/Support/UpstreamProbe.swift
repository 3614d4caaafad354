import Dispatch
import Synchronization
import TetherSignals

/// A cold signal backed by a subject, that counts how often it is subscribed (its "side
/// effect") and how often a subscription to it is disposed — to prove what an operator
/// subscribes to, when, and that it disposes it.
final class UpstreamProbe<Value, Failure: Error>: Sendable {
    let subject = Subject<Value, Failure>()
    let subscriptions = Counter()
    let disposals = Counter()

    init() {}

    /// Each subscription increments `subscriptions`, forwards the subject's events, and
    /// increments `disposals` when it is disposed.
    var signal: Signal<Value, Failure> {
        Signal { [subject, subscriptions, disposals] observer in
            subscriptions.increment()
            let inner = subject.signal.subscribe(observer)
            return ActionDisposable {
                inner.dispose()
                disposals.increment()
            }
        }
    }

    /// Subscriptions that are running now.
    var live: Int { subscriptions.count - disposals.count }

    func send(_ value: Value) { subject.sendNext(value) }
    func fail(_ error: Failure) { subject.sendError(error) }
    func complete() { subject.sendCompleted() }
}

/// Detects overlapping callbacks: `enter()` on entry, `leave()` on exit; an entry while
/// another callback is inside is counted. A subscriber must never see one.
final class OverlapDetector: Sendable {
    private let inside = Atomic<Bool>(false)
    private let overlapCount = Atomic<Int>(0)

    var overlaps: Int { overlapCount.load(ordering: .acquiring) }

    /// Marks entry, and stays "inside" a little while (a few hundred atomic loads) so that a
    /// concurrent callback has a real chance to be caught overlapping.
    func enter() {
        if inside.exchange(true, ordering: .acquiringAndReleasing) {
            overlapCount.add(1, ordering: .relaxed)
        }
        for _ in 0..<200 where !inside.load(ordering: .relaxed) {
            overlapCount.add(1, ordering: .relaxed)   // someone left while we were inside
        }
    }

    func leave() { inside.store(false, ordering: .releasing) }
}

/// Holds an object weakly, to prove it was freed.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
    private struct Box: Sendable { weak var object: Object? }
    private let box = Mutex(Box())

    init() {}

    var object: Object? { box.withLock { $0.object } }
    func set(_ object: Object) { box.withLock { $0.object = object } }
}

/// Runs `body(index)` for `iterations` indices on concurrent threads
/// (`DispatchQueue.concurrentPerform`), holding the first two threads at a start line (a
/// bounded spin, at most 100 ms) so that they really run at the same time instead of one
/// finishing before the other starts.
func runConcurrently(_ iterations: Int, _ body: @Sendable (Int) -> Void) {
    let arrived = Counter()
    DispatchQueue.concurrentPerform(iterations: iterations) { index in
        if arrived.increment() <= 2 {
            let deadline = ContinuousClock.now + .milliseconds(100)
            while arrived.count < min(2, iterations) && ContinuousClock.now < deadline {}
        }
        body(index)
    }
}
