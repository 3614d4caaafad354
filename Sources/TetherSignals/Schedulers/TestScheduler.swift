/// A scheduler with virtual time, for tests: nothing runs until the test advances the clock,
/// and then everything due runs, in order of due time (ties in the order scheduled), on the
/// thread that advances.
///
/// ```swift
/// let scheduler = TestScheduler()
/// var fired: [Duration] = []   // (in a test, collect into a Recorder instead)
/// scheduler.schedule(after: .seconds(2)) { print("two seconds") }
/// scheduler.advance(by: .seconds(1))   // nothing
/// scheduler.advance(by: .seconds(1))   // "two seconds"
/// ```
///
/// ReactiveSwift's `TestScheduler` and NIO's `EmbeddedEventLoop` work the same way.
public final class TestScheduler: Scheduler {
    private struct Item {
        var due: Duration
        let sequence: UInt64
        let interval: Duration?
        /// The action and its cancellation: disposing it releases the closure at once.
        let work: _ScheduledAction
    }

    private struct State {
        var now: Duration = .zero
        var items: [Item] = []   // kept sorted by (due, sequence)
        var nextSequence: UInt64 = 0

        mutating func insert(_ item: Item) {
            let index = items.firstIndex { ($0.due, $0.sequence) > (item.due, item.sequence) } ?? items.endIndex
            items.insert(item, at: index)
        }
    }

    private let state = _Locked(State())

    /// Creates a test scheduler whose clock starts at zero.
    public init() {}

    /// The virtual time: the sum of all advances so far.
    public var now: Duration { state.withLock { $0.now } }

    /// The number of actions waiting to run (cancelled ones excluded).
    public var pendingCount: Int { state.withLock { $0.items.filter { !$0.work.isDisposed }.count } }

    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        enqueue(after: .zero, interval: nil, action)
    }

    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        enqueue(after: delay, interval: nil, action)
    }

    @discardableResult
    public func schedule(
        after delay: Duration,
        repeating interval: Duration,
        _ action: @escaping @Sendable () -> Void
    ) -> any Disposable {
        precondition(interval > .zero, "a repeating interval must be positive")
        return enqueue(after: delay, interval: interval, action)
    }

    private func enqueue(after delay: Duration, interval: Duration?, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        let work = _ScheduledAction(repeats: interval != nil, action)
        state.withLock { state in
            let item = Item(
                due: state.now + max(delay, .zero),
                sequence: state.nextSequence,
                interval: interval,
                work: work
            )
            state.nextSequence += 1
            state.insert(item)
        }
        return work
    }

    /// Advances the virtual clock by `duration`, running everything that falls due (including
    /// work scheduled by that work, if it falls due within the window).
    public func advance(by duration: Duration = .zero) {
        let target = state.withLock { $0.now } + max(duration, .zero)
        advance(to: target)
    }

    /// Advances the virtual clock to `instant` (never backwards).
    public func advance(to instant: Duration) {
        while runOne(upTo: instant) {}
        state.withLock { $0.now = max($0.now, instant) }
    }

    /// Runs everything scheduled, advancing the clock as far as needed, until nothing is left.
    /// Repeating work never runs out: `run()` stops after `limit` actions and returns false
    /// in that case.
    @discardableResult
    public func run(limit: Int = 100_000) -> Bool {
        for _ in 0..<limit {
            let due = state.withLock { state -> Duration? in
                state.items.removeAll { $0.work.isDisposed }
                return state.items.first?.due
            }
            guard let due else { return true }
            _ = runOne(upTo: due)
        }
        return state.withLock { $0.items.allSatisfy { $0.work.isDisposed } }
    }

    /// Runs the first action due at or before `due`; returns false when there is none.
    private func runOne(upTo due: Duration) -> Bool {
        let next = state.withLock { state -> Item? in
            state.items.removeAll { $0.work.isDisposed }
            guard let first = state.items.first, first.due <= due else { return nil }
            state.items.removeFirst()
            state.now = max(state.now, first.due)
            if let interval = first.interval {
                state.insert(Item(
                    due: first.due + interval,
                    sequence: state.nextSequence,
                    interval: interval,
                    work: first.work
                ))
                state.nextSequence += 1
            }
            return first
        }
        guard let next else { return false }
        next.work.run()
        return true
    }
}
