import Foundation

// Work the writer queue does with the store's models and bookkeeping while the store's thread
// waits for it (`insert` binds rows straight from the models; `fetch` makes models as rows are
// read): why that is safe, and the buffer a fetch collects its models in.

/// Models that the writer queue reads while their thread waits for it: `Store.insert` binds
/// their values inside `writer.sync`.
///
/// Why `@unchecked Sendable` is safe: a `_WaitingModels` is only made by `Store.insert` and only
/// used inside the `writer.sync` closure it is captured by. `sync` blocks the models' thread (the
/// only thread that touches them) until the closure returns, and Dispatch orders that thread's
/// writes before the closure and the closure's reads before the thread goes on; nothing keeps
/// the value after the closure. The closure only reads the models' backing storage, through
/// the table's column readers (no dependency tracking, no Observation).
struct _WaitingModels: @unchecked Sendable {
    let objects: UnsafeBufferPointer<AnyObject>
    let indices: [Int]
}

/// State of the store's thread that the writer queue uses while that thread waits for it:
/// `Store._fetch` makes models and updates the identity map inside `writer.sync`.
///
/// Why `@unchecked Sendable` is safe: a `_WhileWaiting` is only made by `Store._fetch` and only
/// used inside the `writer.sync` closure it is captured by. `sync` blocks the store's thread
/// (the only thread that touches what it wraps) until the closure returns, and Dispatch orders
/// that thread's writes before the closure and the closure's writes before the thread goes on;
/// nothing keeps the value after the closure.
struct _WhileWaiting<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The models a fetch made or found, in order, in memory of its own (a fetch does not know the
/// number of rows in advance); `take(as:)` moves them into the result array.
struct _FetchedModels: ~Copyable {
    /// The to-one relationships of the new models: the model, its column's position and the
    /// related row's id, for the store to resolve after the fetch (`Store.resolve`).
    var relations: [(model: AnyObject, position: Int, id: Int64)] = []
    /// Whether to keep the new models in `fresh` (for a table with to-many relationships, or
    /// one whose rows are their children).
    var collectsFresh = false
    /// The new models and their ids, if `collectsFresh`.
    var fresh: [(model: AnyObject, id: Int64)] = []
    private var base: UnsafeMutablePointer<AnyObject>?
    private var stored = 0
    private var capacity = 0

    init() {}

    deinit {
        base?.deinitialize(count: stored)
        base?.deallocate()
    }

    mutating func append(_ model: AnyObject) {
        if stored == capacity { grow() }
        (base.unsafelyUnwrapped + stored).initialize(to: model)
        stored += 1
    }

    private mutating func grow() {
        let larger = max(4, capacity * 2)
        let new = UnsafeMutablePointer<AnyObject>.allocate(capacity: larger)
        if let base {
            new.moveInitialize(from: base, count: stored)
            base.deallocate()
        }
        base = new
        capacity = larger
    }

    /// The models, as an array of their type (which they all are), leaving this empty.
    mutating func take<M: AnyObject>(as _: M.Type) -> [M] {
        let taken = stored
        guard taken > 0, let base else { return [] }
        stored = 0
        // A reference to an `M` and an `AnyObject` are both one strong pointer to the object.
        return [M](unsafeUninitializedCapacity: taken) { buffer, initialized in
            buffer.baseAddress.unsafelyUnwrapped.withMemoryRebound(to: AnyObject.self, capacity: taken) {
                $0.moveInitialize(from: base, count: taken)
            }
            initialized = taken
        }
    }
}
