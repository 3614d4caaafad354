import Foundation
import Synchronization

/// The open stores, so that their pending changes are flushed at normal exit.
final class _StoreRegistry: Sendable {
    static let shared = _StoreRegistry()
    private let stores = _Locked<[ObjectIdentifier: _StoreBox]>([:])

    init() {
        atexit { Store.flushAllAtExit() }
    }

    func add(_ store: Store) {
        let box = _StoreBox()
        box.attach(store)
        stores.withLock { $0[ObjectIdentifier(store)] = box }
    }

    func remove(_ store: Store) {
        _ = stores.withLock { $0.removeValue(forKey: ObjectIdentifier(store)) }
    }

    func all() -> [Store] {
        stores.withLock { $0.values.compactMap(\.store) }
    }
}
