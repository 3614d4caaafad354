import Synchronization
import TetherSignals

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
