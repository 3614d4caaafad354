import Synchronization
import Tether

/// Records every event of a subscription (the model tests run on one thread, but the recorder
/// is Sendable so it can be captured by subscriber closures).
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Event<Value, Never>]>([])
    var events: [Event<Value, Never>] { storage.withLock { $0 } }
    var values: [Value] { events.compactMap(\.value) }
    func append(_ event: Event<Value, Never>) { storage.withLock { $0.append(event) } }

    @discardableResult
    func record(_ signal: Signal<Value, Never>) -> any Disposable {
        signal.subscribe(events: { [self] in append($0) })
    }
}

final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// An object whose end is seen: captured by a subscriber's closures, it tells when they are
/// released.
final class Witness: Sendable {
    let freed: Flag
    init(_ freed: Flag) { self.freed = freed }
    deinit { freed.set() }
}

enum TestError: Error, Equatable { case boom }
