import Synchronization
import TetherSignals

/// Records every event a subscription receives, so a test can compare the whole history with
/// one equality.
final class Recorder<Value, Failure: Error>: Sendable {
    private let eventStorage: _RecorderEvents<Value, Failure> = .init()

    init() {}

    /// The events received so far.
    var events: [Event<Value, Failure>] { eventStorage.events }

    /// The values received so far.
    var values: [Value] { events.compactMap(\.value) }

    /// Whether a terminal event was received.
    var isTerminated: Bool { events.last?.isTerminal ?? false }

    func append(_ event: Event<Value, Failure>) { eventStorage.append(event) }

    /// Subscribes to `signal`, recording into this recorder.
    @discardableResult
    func record(_ signal: Signal<Value, Failure>) -> any Disposable {
        signal.subscribe(events: { [self] in append($0) })
    }
}

/// Holds the events behind a lock; `@unchecked Sendable` because `Value` need not be Sendable in
/// tests, and every access goes through `lock`.
private final class _RecorderEvents<Value, Failure: Error>: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    private var storage: [Event<Value, Failure>] = []
    var events: [Event<Value, Failure>] { lock.withLock { _ in storage } }
    func append(_ event: Event<Value, Failure>) { lock.withLock { _ in storage.append(event) } }
}

extension Signal {
    /// Subscribes a new recorder to this signal.
    func record() -> (Recorder<Value, Failure>, any Disposable) {
        let recorder = Recorder<Value, Failure>()
        let disposable = recorder.record(self)
        return (recorder, disposable)
    }
}

/// An object whose deinit is observable, to prove what a subscription keeps alive.
final class Tracked: Sendable {
    let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// A flag a test can set from any thread.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// A counter a test can bump from any thread.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    var count: Int { value.load(ordering: .acquiring) }
    @discardableResult func increment() -> Int { value.add(1, ordering: .acquiringAndReleasing).newValue }
}

/// A simple error for tests.
enum TestError: Error, Equatable {
    case boom
    case other(Int)
}
