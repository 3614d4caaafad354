import Synchronization
import Tether

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
