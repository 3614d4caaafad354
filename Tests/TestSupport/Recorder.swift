import Synchronization
import TetherSignals

/// Records every event a subscription receives, so a test can compare the whole history with
/// one equality. Shared by the test targets (signals, models, terminal).
///
/// ```swift
/// let recorder = Recorder<Int, Never>()
/// recorder.record(observe(invoice, \.quantity))
/// #expect(recorder.values == [1, 2])
/// ```
public final class Recorder<Value, Failure: Error>: Sendable {
    private let eventStorage: _RecorderEvents<Value, Failure> = .init()

    public init() {}

    /// The events received so far.
    public var events: [Event<Value, Failure>] { eventStorage.events }

    /// The values received so far.
    public var values: [Value] { events.compactMap(\.value) }

    /// Whether a terminal event was received.
    public var isTerminated: Bool { events.last?.isTerminal ?? false }

    public func append(_ event: Event<Value, Failure>) { eventStorage.append(event) }

    /// Subscribes to `signal`, recording into this recorder.
    @discardableResult
    public func record(_ signal: Signal<Value, Failure>) -> any Disposable {
        signal.subscribe(events: { [self] in append($0) })
    }
}

/// Holds the events behind a lock; `@unchecked Sendable` because `Value` need not be Sendable in
/// tests, and every access to `storage` goes through `lock`.
private final class _RecorderEvents<Value, Failure: Error>: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    private var storage: [Event<Value, Failure>] = []
    var events: [Event<Value, Failure>] { lock.withLock { _ in storage } }
    func append(_ event: Event<Value, Failure>) { lock.withLock { _ in storage.append(event) } }
}

extension Signal {
    /// Subscribes a new recorder to this signal.
    public func record() -> (Recorder<Value, Failure>, any Disposable) {
        let recorder = Recorder<Value, Failure>()
        let disposable = recorder.record(self)
        return (recorder, disposable)
    }
}
