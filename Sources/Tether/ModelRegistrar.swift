public import CTetherThread
import Observation
import Synchronization

/// One observer of one tracked property (or of every property, in the last slot).
///
/// `onChange` receives the observer itself, the property's index and a pointer to its new
/// value, valid only during the call (so a stored-property observer can read the value without
/// boxing it); `onEnd` the observer, when the model is freed. A subclass keeps what its
/// closures need in fields of its own (see `_PropertySubscription`): closures that capture
/// nothing are not allocated.
///
/// Why `@unchecked Sendable` is safe: its fields are immutable `Sendable` closures, and a
/// subclass adds only immutable `Sendable` fields, weak references and atomics (the class is not
/// final so that one object can be both the observer and its subscription).
@usableFromInline
package class _SlotObserver: @unchecked Sendable {
    @usableFromInline final let onChange: @Sendable (_SlotObserver, Int, UnsafeRawPointer) -> Void
    @usableFromInline final let onEnd: @Sendable (_SlotObserver) -> Void

    @inlinable
    package init(
        onChange: @escaping @Sendable (_SlotObserver, Int, UnsafeRawPointer) -> Void,
        onEnd: @escaping @Sendable (_SlotObserver) -> Void
    ) {
        self.onChange = onChange
        self.onEnd = onEnd
    }
}

/// The observers of one slot, as registered (under the registrar's lock).
@usableFromInline
struct _Slot {
    @usableFromInline var observers = _Bag<_SlotObserver>()
    /// Incremented by every insertion and removal, so the owner can tell whether its
    /// delivery view (`_Delivery`) is out of date.
    @usableFromInline var version: UInt64 = 0
    @usableFromInline init() {}
}

/// The owner's view of one slot: the observers it calls, copied from the slot's
/// `_Bag` when that changed, and whether a notification of the slot is being delivered.
///
/// The view holds a strong reference to each of its observers (retained by hand: `Unmanaged`,
/// so that a delivery calls them without retaining and releasing each one). It is only
/// replaced when no delivery is iterating it (see `ModelRegistrar._refresh`), so a delivery
/// can call its observers without copying the list.
@usableFromInline
struct _Delivery {
    /// The first observer (most slots have at most one: no array is allocated for it).
    @usableFromInline var first: Unmanaged<_SlotObserver>?
    /// The others, in registration order.
    @usableFromInline var rest: ContiguousArray<Unmanaged<_SlotObserver>> = []
    /// Whether `rest` is not empty (one load less for the common check).
    @usableFromInline var hasRest = false
    /// The slot's `version` this view was copied from.
    @usableFromInline var version: UInt64 = 0
    /// A notification of this slot is being delivered.
    @usableFromInline var delivering = false
    /// The property changed again during delivery: deliver its current value once more.
    @usableFromInline var dirty = false
    @usableFromInline init() {}

    /// Releases the observers (the view is being replaced or the registrar is freed).
    mutating func release() {
        first?.release()
        first = nil
        for observer in rest { observer.release() }
        rest = []
        hasRest = false
    }
}

/// The delivery state of a registrar, touched only on the model's owner.
///
/// Why `@unchecked Sendable` is safe: models are confined to their owner, a thread or an actor
/// (see `ModelRegistrar.isOnOwner`; bindings, observation subscriptions and writes that have
/// anybody to tell check it), and notifications run synchronously in the code that writes the
/// model, so this state is only ever read and written by the owner: one thread, or one actor's
/// serial executor, whose jobs are ordered one after another even when they run on different
/// threads. Other threads change the registered observers under the registrar's lock and only
/// flag the views as out of date (`ModelRegistrar.staleBit`). The registrar's `deinit` also
/// touches it, when no other thread can reach the registrar.
@usableFromInline
final class _DeliveryState: @unchecked Sendable {
    /// One view per slot, in a buffer of our own: reading and writing it costs no bounds
    /// check and no copy-on-write uniqueness check.
    @usableFromInline let slots: UnsafeMutablePointer<_Delivery>
    @usableFromInline let count: Int
    /// How many deliveries of this registrar are running (nested: an observer that writes
    /// another property of the model starts one inside another).
    // Only the owner ever touches it (see above), so the dynamic exclusivity check (a runtime
    // call on every access) cannot find anything: it is off.
    @exclusivity(unchecked) @usableFromInline var depth = 0

    @usableFromInline init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: _Delivery(), count: count)
    }

    deinit {
        for index in 0..<count { slots[index].release() }
        slots.deinitialize(count: count)
        slots.deallocate()
    }
}

/// The per-instance machinery of a `@Model` object: who observes which property, the model's
/// lifetime, its owner (a thread or an actor), and its bridge to Swift's Observation.
///
/// Code generated by `@Model` calls `access` in each getter and `willSet`/`didSet` in each
/// setter. While nobody observes a property (and no dependency tracking or transaction is
/// active, and Observation never saw the property read), those calls cost a few relaxed
/// atomic loads.
///
/// How a change reaches observers: observers are registered under a lock (`slots`, from any
/// thread), but the owner delivers changes from its own copy of each slot's list
/// (`delivery`), without taking the lock; registering or removing an observer bumps the slot's
/// version and sets `staleBit`, and the owner copies the list again at its next write. An observer
/// removed on another thread is therefore released by the owner (at its next write of
/// the model, or when the model is freed); one removed on the owner is released at once
/// (or, if a delivery of the model is running, when it ends).
///
/// The registrar is stored inside its model (`let _$registrar`, a noncopyable value): a model
/// that nobody observes is one object. What observers need lives in a side object made on
/// first use (`_RegistrarSide`), which points back at the registrar only while the model lives.
///
/// ```swift
/// let invoice = Invoice()
/// invoice._$registrar.observerCount(index: 0)   // 0
/// invoice._$registrar.rowID.load(ordering: .relaxed)   // 0: not stored
/// ```
public struct ModelRegistrar: ~Copyable, Sendable {
    /// Bit `i` is set while property `i` (i < 62) has observers; bit 63 while anybody observes
    /// every property, or a property with index 62 or more. Bit 62 (`staleBit`) is set when
    /// observers were added or removed since the owner last copied them into its delivery
    /// views. Changed only under the side object's `slots` lock.
    @usableFromInline let watched = Atomic<UInt64>(0)
    /// Bit `i` is set once property `i` (bit 63: a property with index 62 or more) has been read
    /// with the Observation bridge on, outside Tether's own reads: only such a property can
    /// have Observation observers (`withObservationTracking` and `Observations` observe what
    /// was read through `ObservationRegistrar.access`), so only its writes are reported to
    /// Observation. Never cleared: Observation offers no way to tell when its observers are
    /// gone.
    @usableFromInline let bridged = Atomic<UInt64>(0)
    /// Where the model belongs: the thread that made it, or the actor it was made on (see
    /// `_Owner` and `adopt(_:)`).
    @usableFromInline let owner = Atomic<UInt>(0)
    /// The columns of the model's row with changes the store has not taken for a commit yet
    /// (bit `i`: property `i` below 63; bit 63: any from 63 on; 0: the row is not pending), as
    /// the persistence layer keeps them: a set finds here, beside the fields the setter has
    /// just read, whether its column is pending already, and looks nothing up. Owned by the
    /// persistence layer, on the model's owner.
    package let pendingColumns = Atomic<UInt64>(0)
    /// The model's row id in the store that holds it (0: not stored). Set by persistence.
    public let rowID = Atomic<Int64>(0)
    /// What a model with observers, bindings or Observation observers needs, made on first use
    /// and released with the registrar, in the low 48 bits: 0 until then; then the address of a
    /// `_RegistrarSide` (observers, delivery views, lifetime, and the Observation registrar
    /// once needed); or, for a model only read under Observation, the address of an
    /// `_ObservationBox` with bit 0 set (Observation's registrar alone: a few words where the
    /// side object costs hundreds of bytes). A box becomes part of the side object made later,
    /// which keeps it. The top 16 bits hold the number of tracked properties (what the side
    /// object is made for): one word less in every model. Addresses of objects fit in 48 bits
    /// on the 64-bit platforms Swift runs on (checked when one is installed).
    @usableFromInline let _side: Atomic<UInt>

    /// The bits of `_side` that hold an address (with bit 0, the box's tag).
    @usableFromInline static var addressBits: UInt { (1 << 48) - 1 }

    /// The side object in `bits` (a value of `_side`), if it is one.
    @inlinable @inline(__always)
    static func sideObject(_ bits: UInt) -> Unmanaged<_RegistrarSide>? {
        guard bits & 1 == 0, let pointer = UnsafeRawPointer(bitPattern: bits & addressBits) else { return nil }
        return Unmanaged.fromOpaque(pointer)
    }

    /// The Observation box in `bits` (a value of `_side`), if it is one.
    @inlinable @inline(__always)
    static func observationBox(_ bits: UInt) -> Unmanaged<_ObservationBox>? {
        guard bits & 1 == 1, let pointer = UnsafeRawPointer(bitPattern: bits & addressBits & ~1) else { return nil }
        return Unmanaged.fromOpaque(pointer)
    }

    /// `bits` (a value of `_side`) with `object`'s address (and `tag`) in place of its own.
    static func installing(_ object: UnsafeMutableRawPointer, tag: UInt = 0, in bits: UInt) -> UInt {
        let address = UInt(bitPattern: object)
        precondition(address & ~addressBits == 0, "Tether: an object's address does not fit in 48 bits")
        return bits & ~addressBits | address | tag
    }

    /// The number of tracked properties (kept in `_side`'s top bits).
    @usableFromInline var propertyCount: Int { Int(_side.load(ordering: .relaxed) >> 48) }
    /// The persistence layer's hook (see `_PersistenceHook`), retained; set and cleared on the
    /// owner only, which is also the only thread that calls it.
    @usableFromInline let _persistence = Atomic<Unmanaged<_PersistenceHook>?>(nil)

    /// Creates the registrar of a model with `propertyCount` tracked properties (called by code
    /// that `@Model` generates). It allocates nothing more until somebody observes, binds or
    /// persists the model, or reads it under Observation.
    public init(propertyCount: Int) {
        precondition(propertyCount < 1 << 16, "Tether: a model has at most 65,535 tracked properties")
        _side = Atomic(UInt(propertyCount) << 48)
        owner.store(_Owner.current, ordering: .relaxed)
    }

    /// Creates the registrar of a model of a class isolated to a global actor (called by code
    /// that `@Model` generates, with the global actor's `shared` instance): the model belongs
    /// to that actor from the start, wherever it is made.
    public init(propertyCount: Int, actor: any Actor) {
        precondition(propertyCount < 1 << 16, "Tether: a model has at most 65,535 tracked properties")
        _side = Atomic(UInt(propertyCount) << 48)
        owner.store(_Owner.of(actor) | _Owner.fixed, ordering: .relaxed)
    }

    deinit {
        if let hook = _persistence.load(ordering: .acquiring) {
            _ = hook._withUnsafeGuaranteedRef { $0.endedModels.wrappingAdd(1, ordering: .relaxed) }
            hook.release()
        }
        let bits = _side.load(ordering: .acquiring)
        Self.observationBox(bits)?.release()
        guard let side = Self.sideObject(bits)?.takeRetainedValue() else { return }
        // The model is being freed: complete every observer, end every binding.
        let (observers, views) = side.end()
        for observer in observers { observer.onEnd(observer) }
        for var view in views { view.release() }
        side.lifetime.dispose()
    }

    /// Where this registrar is: inside its model, so the address is valid while the model
    /// lives (for code that holds the model and reaches its registrar without its type).
    package var address: UnsafePointer<ModelRegistrar> { withUnsafePointer(to: self) { $0 } }

    /// The side object, made now if it does not exist yet (by any thread: the first one
    /// installed wins).
    @usableFromInline
    var side: _RegistrarSide {
        if let side = Self.sideObject(_side.load(ordering: .acquiring)) { return side.takeUnretainedValue() }
        return _makeSide()
    }

    /// Makes and installs the side object, taking over the Observation box if there is one.
    @usableFromInline
    func _makeSide() -> _RegistrarSide {
        var bits = _side.load(ordering: .acquiring)
        while true {
            if let side = Self.sideObject(bits) { return side.takeUnretainedValue() }
            let box = Self.observationBox(bits)
            // The side object holds the box from now on (whoever still uses it keeps it alive).
            let made = Unmanaged.passRetained(_RegistrarSide(
                count: Int(bits >> 48) + 1, registrar: withUnsafePointer(to: self) { $0 }, observation: box?.takeUnretainedValue()))
            let (installed, current) = _side.compareExchange(
                expected: bits, desired: Self.installing(made.toOpaque(), in: bits), ordering: .acquiringAndReleasing)
            if installed {
                box?.release()   // the registrar's reference; the side object has its own
                return made.takeUnretainedValue()
            }
            made.release()
            bits = current
        }
    }

    /// Observation's registrar for this model, made on first use: in the side object if there
    /// is one, else in a box of its own.
    @usableFromInline
    var observation: ObservationRegistrar {
        var bits = _side.load(ordering: .acquiring)
        while true {
            if let side = Self.sideObject(bits) { return side._withUnsafeGuaranteedRef { $0.observation } }
            if let box = Self.observationBox(bits) { return box._withUnsafeGuaranteedRef { $0.registrar } }
            let made = Unmanaged.passRetained(_ObservationBox())
            let (installed, current) = _side.compareExchange(
                expected: bits, desired: Self.installing(made.toOpaque(), tag: 1, in: bits), ordering: .acquiringAndReleasing)
            if installed { return made._withUnsafeGuaranteedRef { $0.registrar } }
            made.release()
            bits = current
        }
    }

    /// Disposed when the model is freed: ends bindings and other work tied to the model.
    public var lifetime: CompoundDisposable { side.lifetime }

    /// The observers as registered (under the lock), from any thread.
    @usableFromInline var slots: _Locked<[_Slot]> { side.slots }

    /// The bits of `watched` (and `bridged`) that a change of property `index` must look at:
    /// its own, and bit 63 (every-property observers, and properties 63 and up).
    @inlinable
    static func mask(for index: Int) -> UInt64 {
        (index < 62 ? (1 as UInt64) << UInt64(index) : 0) | (1 << 63)
    }

    /// The bit of slot `slot` in `watched` (a property's, or bit 63 for `anySlot` and properties
    /// 62 and up), and of property `slot` in `bridged`.
    @inlinable
    static func slotBit(_ slot: Int) -> UInt64 {
        slot < 62 ? (1 as UInt64) << UInt64(slot) : 1 << 63
    }

    /// The bit of `watched` that says the owner's delivery views are out of date.
    @inlinable
    static var staleBit: UInt64 { 1 << 62 }

    /// Whether the owner's delivery views are out of date.
    @inlinable @inline(__always)
    var isStale: Bool { watched.load(ordering: .relaxed) & Self.staleBit != 0
    }

    /// Whether a write of property `index` must do more than store the value: somebody
    /// observes it (or may: Observation), the persistence layer holds the model, or the owner
    /// thread's delivery views are out of date (a write brings them up to date, releasing
    /// observers removed on other threads). An open transaction does not count: a change
    /// nobody listens to has nothing to deliver at its end (an observer that subscribes during
    /// the transaction starts from the current value).
    @inlinable @inline(__always)
    func needsNotification(_ index: Int, bridged: UInt64) -> Bool {
        watched.load(ordering: .relaxed) & (Self.mask(for: index) | Self.staleBit) | bridged & Self.mask(for: index) != 0
            || _persistence.load(ordering: .relaxed) != nil
    }

    // MARK: Called by generated getters and setters

    /// Before a read or write of a to-many collection: loads the model's collections if the
    /// store has not yet (it loads a stored model's collections on first use, not with the
    /// model). Whether they wait is said by the persistence hook installed (the store installs
    /// one that says so), so that the registrar carries no field for it.
    @inlinable @inline(__always)
    public func loadCollectionsIfNeeded(_ model: AnyObject) {
        if let hook = _persistence.load(ordering: .relaxed), hook._withUnsafeGuaranteedRef({ $0.collectionsUnloaded }) {
            _loadCollections(model)
        }
    }

    @usableFromInline @inline(never)
    func _loadCollections(_ model: AnyObject) {
        // The hook installs one whose collections are loaded before it loads them.
        _persistence.load(ordering: .acquiring)?._withUnsafeGuaranteedRef { $0.loadCollections(model, self) }
    }

    /// Whether the model's to-many collections wait for their first use to be loaded.
    package var hasUnloadedCollections: Bool {
        _persistence.load(ordering: .acquiring)?._withUnsafeGuaranteedRef { $0.collectionsUnloaded } ?? false
    }

    /// Reports a read of property `index` (for dependency tracking and Observation): to the
    /// evaluation running on this thread, if there is one (nearly always the read it made at
    /// this point last time: one thread-local load and a comparison), or else to Observation
    /// if the bridge is on.
    @inlinable @inline(__always)
    public func access<M: Model, V>(_ model: M, index: Int, _ keyPath: @autoclosure () -> KeyPath<M, V>) {
        if let recording = _currentRecording() {
            if !recording.pointee.recordExpected(model, index) { _recordUnexpectedRead(recording, model, index) }
            return
        }
        if tether_observation_bridge_get() { _bridgeRead(model, index: index, keyPath) }
    }

    /// Reports a read to Observation (the bridge is on, no evaluation runs on this thread),
    /// unless Tether is reading for itself, and remembers that Observation may now observe the
    /// property.
    @usableFromInline @inline(never)
    func _bridgeRead<M: Model, V>(_ model: M, index: Int, _ keyPath: () -> KeyPath<M, V>) {
        if _readingQuietly { return }
        let bit = Self.slotBit(index)
        if bridged.load(ordering: .relaxed) & bit == 0 { bridged.bitwiseOr(bit, ordering: .relaxed) }
        observation.access(model, keyPath: keyPath())
    }

    /// Called before a write; returns true if the setter must call `didSet` after storing.
    @inlinable @inline(__always)
    public func willSet<M: Model, V>(
        _ model: M, index: Int, from oldValue: V, to newValue: V, _ keyPath: @autoclosure () -> KeyPath<M, V>
    ) -> Bool {
        let bridged = bridged.load(ordering: .relaxed)
        guard needsNotification(index, bridged: bridged) else { return false }
        if bridged & Self.mask(for: index) != 0 { _willSetSlow(model, keyPath) }
        return true
    }

    /// Called before a write of an `Equatable` value: writing an equal value notifies nobody.
    @inlinable @inline(__always)
    public func willSet<M: Model, V: Equatable>(
        _ model: M, index: Int, from oldValue: V, to newValue: V, _ keyPath: @autoclosure () -> KeyPath<M, V>
    ) -> Bool {
        let bridged = bridged.load(ordering: .relaxed)
        guard needsNotification(index, bridged: bridged), oldValue != newValue else { return false }
        if bridged & Self.mask(for: index) != 0 { _willSetSlow(model, keyPath) }
        return true
    }

    /// Out of line: it holds an `ObservationRegistrar` value, whose size is only known at run
    /// time outside the Observation module; inlined, it would make every setter look up its
    /// type and reserve stack for it on each write (W5c).
    @usableFromInline @inline(never)
    func _willSetSlow<M: Model, V>(_ model: M, _ keyPath: () -> KeyPath<M, V>) {
        if tether_observation_bridge_get() {
            observation.willSet(model, keyPath: keyPath())
        }
    }

    /// Called after a write that `willSet` said needs it: notifies observers (or records the
    /// change for the end of the current transaction).
    @inlinable @inline(__always)
    public func didSet<M: Model, V>(_ model: M, index: Int, to newValue: V, _ keyPath: @autoclosure () -> KeyPath<M, V>) {
        let mask = Self.mask(for: index)
        if _slowPath(_ThreadContext.transactionOpen || bridged.load(ordering: .relaxed) & mask != 0) {
            // Observation may observe this property, or a transaction is open on this thread:
            // the key path is at hand here.
            _didSetSlowEntry(model, index: index, value: newValue, keyPath)
            return
        }
        _didSet(model, index: index, mask: mask, to: newValue, M.self)
    }

    /// `didSet`'s rare path, out of line and specialised, so that both of `didSet`'s calls are
    /// tail calls and a setter needs no stack frame of its own (W5c).
    @inlinable @inline(never)
    func _didSetSlowEntry<M: Model, V>(_ model: M, index: Int, value: V, _ keyPath: () -> KeyPath<M, V>) {
        _didSetSlow(model, index: index, value: value, keyPath())
    }

    /// `didSet`, out of line: a setter's fast path (nobody observing) stays a few instructions,
    /// without the prologue this needs. Specialised for the value type, but not for the model
    /// type (`type` leads to what needs it, the rare paths): one copy serves every model with a
    /// property of that type, so the optimizer has no near-identical copies to merge behind
    /// forwarding thunks. `mask` is `mask(for: index)`, which the setter computes at compile
    /// time. The setter has already sent the write to `_didSetSlow` if Observation may observe
    /// the property or a transaction is open.
    @inlinable @inline(never)
    func _didSet<V>(_ model: AnyObject, index: Int, mask: UInt64, to newValue: V, _ type: any _ModelWrites.Type) {
        guard watched.load(ordering: .relaxed) & mask != 0 || _persistence.load(ordering: .relaxed) != nil else {
            _refreshIfIdle()
            return
        }
        notify(model, index: index, value: newValue, type)
    }

    /// Whether a change of property `index` has anybody to tell: observers, or persistence.
    @usableFromInline
    func hasListeners(_ index: Int) -> Bool {
        watched.load(ordering: .relaxed) & Self.mask(for: index) != 0 || _persistence.load(ordering: .relaxed) != nil
    }

    /// Brings the delivery views up to date if they are not (and no delivery is running).
    @usableFromInline
    func _refreshIfIdle() {
        if isStale, isOnOwner, side.delivery.depth == 0 {
            _ = _refresh(nil, anyInUse: false)
        }
    }

    @usableFromInline
    func _didSetSlow<M: Model, V>(_ model: M, index: Int, value: V, _ keyPath: KeyPath<M, V>) {
        if tether_observation_bridge_get(), bridged.load(ordering: .relaxed) & Self.mask(for: index) != 0 {
            observation.didSet(model, keyPath: keyPath)
        }
        if _ThreadContext.transactionOpen, let context = _ThreadContext.existing {
            let id = ObjectIdentifier(model)
            if !context.transactionChanges.contains(where: { $0.model == id && $0.index == index }) {
                context.transactionChanges.append(_RecordedChange(model: id, index: index) {
                    guard model._$registrar.hasListeners(index) else { return }
                    model._$registrar.notify(model, index: index, value: _quietly { model[keyPath: keyPath] }, M.self)
                })
            }
            return
        }
        guard hasListeners(index) else {
            _refreshIfIdle()
            return
        }
        notify(model, index: index, value: value, M.self)
    }

    /// Delivers a change of property `index` to its observers, to every-property observers and
    /// to the persistence hook. A change made by an observer during delivery is delivered after
    /// the current delivery, with the property's value at that time (never re-entrantly, so
    /// observers see values in the order they were set).
    ///
    /// The write is checked first: made off the model's owner, it would race with the owner's
    /// deliveries, so it stops the process with a message (a write nobody observes or persists
    /// touches nothing of Tether's and is not checked).
    @inlinable @inline(__always)
    func notify<V>(_ model: AnyObject, index: Int, value: V, _ type: any _ModelWrites.Type) {
        if _slowPath(!isOnOwner) { _offOwnerWrite(model, index: index) }
        var value = value
        if _deliverFirst(model, index, &value) {
            type._redeliver(model, index: index, V.self)
        }
    }

    /// Stops the process: property `index` of `model` was written off the model's owner.
    @usableFromInline @inline(never)
    func _offOwnerWrite(_ model: AnyObject, index: Int) -> Never {
        _offOwner(self, "a write of property \(index) of \(type(of: model))")
    }

    /// `_deliver(model, index, value, again: false)`, inlined into `notify` (so into the
    /// setter's out-of-line `_didSet`: one call less per change). The pointer only lives for
    /// the call.
    @inlinable @inline(__always)
    func _deliverFirst<V>(_ model: AnyObject, _ index: Int, _ value: UnsafeMutablePointer<V>) -> Bool {
        _deliverInline(model, index, UnsafeRawPointer(value), again: false)
    }

    /// The rest of `notify` when the property changed again during its delivery: delivers its
    /// current value until it stops changing (reached through `_ModelWrites._redeliver`).
    @usableFromInline
    func _redeliver<M: Model, V>(_ model: M, index: Int, keyPath: KeyPath<M, V>) {
        var more = true
        while more {
            var value = _quietly { model[keyPath: keyPath] }
            more = _withUnprotectedUnsafePointer(to: &value) { _deliver(model, index, UnsafeRawPointer($0), again: true) }
        }
    }

    /// Calls the observers of property `index`, the every-property observers and the
    /// persistence hook with the value at `value` (on the owner). A first call
    /// (`again == false`) made while the same property is being delivered only marks it dirty
    /// and returns false. Returns true when the property changed again during the delivery: the
    /// caller reads its current value and calls again with `again == true`; false when the
    /// delivery is over.
    @usableFromInline
    func _deliver(_ model: AnyObject, _ index: Int, _ value: UnsafeRawPointer, again: Bool) -> Bool {
        _deliverInline(model, index, value, again: again)
    }

    /// `_deliver`, inlined where it is called (`_deliver` itself, and `_deliverFirst`).
    @inlinable @inline(__always)
    func _deliverInline(_ model: AnyObject, _ index: Int, _ value: UnsafeRawPointer, again: Bool) -> Bool {
        // The side object lives as long as the registrar, which the caller keeps alive.
        guard let side = Self.sideObject(_side.load(ordering: .acquiring)) else {
            _deliverToPersistence(model, index)
            return false
        }
        return side._withUnsafeGuaranteedRef { side in _deliver(side, model, index, value, again: again) }
    }

    /// Reports a change to the persistence hook, if one is installed (the only listener of a
    /// model that nobody ever observed).
    @usableFromInline
    func _deliverToPersistence(_ model: AnyObject, _ index: Int) {
        if let hook = _persistence.load(ordering: .acquiring) {
            hook._withUnsafeGuaranteedRef { $0.changed(model, self, index) }
        }
    }

    /// `_deliver`, given the side object (which the caller keeps alive).
    @inlinable @inline(__always)
    func _deliver(_ side: _RegistrarSide, _ model: AnyObject, _ index: Int, _ value: UnsafeRawPointer, again: Bool) -> Bool {
        let state = side.delivery
        // The views live in a buffer that is never reallocated: a pointer to one stays valid.
        let view = state.slots + index
        if !again {
            if view.pointee.delivering {
                view.pointee.dirty = true
                return false
            }
            view.pointee.delivering = true
            state.depth &+= 1
        }
        // Bit 63 of `watched` is set while anybody observes every property (or a property
        // numbered 63 or more).
        if watched.load(ordering: .relaxed) & (Self.staleBit | 1 << 63) == 0,
           _persistence.load(ordering: .relaxed) == nil {
            // Nearly always: the property's own observers, whose view is up to date, and nobody else.
            _callObservers(view, index, value)
        } else {
            _deliverWithOthers(side, model, index, value)
        }
        if view.pointee.dirty {
            view.pointee.dirty = false
            return true
        }
        view.pointee.delivering = false
        state.depth &-= 1
        if state.depth == 0, isStale {
            // Observers removed during the delivery: release them now.
            _ = _refresh(nil, anyInUse: false)
        }
        return false
    }

    /// The middle of `_deliver` when there is more to do than calling the property's observers
    /// (out of line): brings the views up to date, then calls the property's observers, the
    /// every-property observers and the persistence hook.
    @usableFromInline @inline(never)
    func _deliverWithOthers(_ side: _RegistrarSide, _ model: AnyObject, _ index: Int, _ value: UnsafeRawPointer) {
        let state = side.delivery
        let view = state.slots + index
        // The every-property view can be replaced only when no other delivery iterates it.
        var anyView = true
        if isStale {
            anyView = _refresh(index, anyInUse: state.depth > 1)
        }
        _callObservers(view, index, value)
        // The every-property view is up to date unless `anyView` is false.
        if !anyView || watched.load(ordering: .relaxed) & (1 << 63) != 0 {
            _deliverToEveryPropertyObservers(side, state.slots + side.anySlot, index, value, anyView)
        }
        if let hook = _persistence.load(ordering: .acquiring) {
            hook._withUnsafeGuaranteedRef { $0.changed(model, self, index) }
        }
    }

    /// Calls the observers in the view of property `index` with the value at `value`.
    @inlinable @inline(__always)
    func _callObservers(_ view: UnsafeMutablePointer<_Delivery>, _ index: Int, _ value: UnsafeRawPointer) {
        if let first = view.pointee.first {
            first._withUnsafeGuaranteedRef { $0.onChange($0, index, value) }
            if view.pointee.hasRest { _deliverRest(view, index, value) }
        }
    }

    /// Calls the observers of `view` after its first one (part of `_deliver`, out of line:
    /// most properties have one observer). `rest` cannot be replaced during this delivery:
    /// only this one iterates it.
    @usableFromInline @inline(never)
    func _deliverRest(_ view: UnsafeMutablePointer<_Delivery>, _ index: Int, _ value: UnsafeRawPointer) {
        var position = 0
        while position < view.pointee.rest.count {
            view.pointee.rest[position]._withUnsafeGuaranteedRef { $0.onChange($0, index, value) }
            position += 1
        }
    }

    /// Calls the every-property observers (part of `_deliver`, out of line): from their view
    /// `any`, or, if it is out of date and in use by an outer delivery (`anyView` false), from
    /// a copy of their list.
    @usableFromInline @inline(never)
    func _deliverToEveryPropertyObservers(
        _ side: _RegistrarSide, _ any: UnsafeMutablePointer<_Delivery>, _ index: Int, _ value: UnsafeRawPointer, _ anyView: Bool
    ) {
        if anyView {
            if let first = any.pointee.first {
                first._withUnsafeGuaranteedRef { $0.onChange($0, index, value) }
                var position = 0
                while position < any.pointee.rest.count {
                    any.pointee.rest[position]._withUnsafeGuaranteedRef { $0.onChange($0, index, value) }
                    position += 1
                }
            }
        } else {
            let entries = side.slots.withLock { $0[side.anySlot].observers.entries }
            for entry in entries { if let observer = entry.element { observer.onChange(observer, index, value) } }
        }
    }

    /// Copies the observer lists that changed into the owner's delivery views (see
    /// `_RegistrarSide.refresh`). Owner thread only.
    @usableFromInline
    func _refresh(_ index: Int?, anyInUse: Bool) -> Bool {
        side.refresh(index, anyInUse: anyInUse)
    }

    // MARK: Observers

    /// Adds an observer of property `index` (or of every property, for `nil`), returning the
    /// disposable that removes it.
    @usableFromInline
    package func addObserver(index: Int?, _ observer: _SlotObserver) -> any Disposable {
        side.addObserver(index: index, observer)
    }

    /// Adds an observer to slot `slot` (a property's index, or `anySlot`), returning the token
    /// that `_RegistrarSide.removeObserver(slot:token:)` takes.
    @usableFromInline
    func addObserver(slot: Int, _ observer: _SlotObserver) -> UInt64 {
        // The model is alive (the caller holds it): its side object has not ended.
        side.addObserver(slot: slot, observer)!
    }

    /// The number of observers of property `index` (or of every property, for nil).
    public func observerCount(index: Int?) -> Int {
        guard let side = Self.sideObject(_side.load(ordering: .acquiring)) else { return 0 }
        return side._withUnsafeGuaranteedRef { side in side.slots.withLock { $0[index ?? side.anySlot].observers.count } }
    }

    // MARK: Persistence

    /// Installs (or, with nil, removes) the persistence layer's hook: from now on every change
    /// of a tracked property is also reported to it, after the observers. Call it on the model's
    /// owner thread (the only thread that runs the hook).
    package func setPersistence(_ hook: _PersistenceHook?) {
        let new = hook.map { Unmanaged.passRetained($0) }
        _persistence.exchange(new, ordering: .acquiringAndReleasing)?.release()
    }

    /// Whether the side object (observers, lifetime) was made: false for a model that nobody
    /// observed or bound.
    package var hasSideObject: Bool { Self.sideObject(_side.load(ordering: .acquiring)) != nil }

    /// Whether Observation's registrar was made (by a read under the bridge, or with the side
    /// object once Observation needed it).
    package var hasObservationRegistrar: Bool {
        let bits = _side.load(ordering: .acquiring)
        if Self.observationBox(bits) != nil { return true }
        return Self.sideObject(bits)?._withUnsafeGuaranteedRef { $0._observation.load(ordering: .acquiring) != nil } ?? false
    }

    /// The properties (bits, as in `bridged`) that Observation may observe: those read outside
    /// Tether with the bridge on.
    package var bridgedProperties: UInt64 { bridged.load(ordering: .relaxed) }

    /// The installed persistence hook, if any.
    package var persistence: _PersistenceHook? {
        _persistence.load(ordering: .acquiring)?.takeUnretainedValue()
    }

    // MARK: Owner

    /// Whether the calling code runs where the model belongs: on the thread that made it (or
    /// adopted it), or on the actor it was made on (whatever thread that actor's executor uses).
    @inlinable
    public var isOnOwner: Bool {
        _Owner.isCurrent(ownerWord)
    }

    /// The owner word (see `_Owner`), for `_Owner.isCurrent`: a caller that loads it first and
    /// checks the word does not keep the registrar retained across the check's call.
    @inlinable
    public var ownerWord: UInt { owner.load(ordering: .relaxed) }

    /// Makes the calling code's thread, or its actor if it runs on one, the model's owner.
    /// A model of a class isolated to a global actor stays with that actor.
    public func adoptByCaller() {
        adopt(owner: _Owner.current)
    }

    /// The calling code's owner word, as `adopt(owner:)` takes it: its actor's executor, or
    /// its thread.
    package static var currentOwner: UInt { _Owner.current }

    /// Makes `owner` (a `currentOwner` read by that code) the model's owner: for a model made
    /// on one thread for code that waits meanwhile (the store's fetch).
    /// A model of a class isolated to a global actor stays with that actor.
    package func adopt(owner: UInt) {
        guard self.owner.load(ordering: .relaxed) & _Owner.fixed == 0 else { return }
        self.owner.store(owner, ordering: .relaxed)
    }

    /// Where the model belongs, in words, for messages: "the main actor", "the actor that
    /// made it" or "the thread that made it".
    package var ownerDescription: String {
        _Owner.describe(owner.load(ordering: .relaxed))
    }
}

/// Removes one observer from a registrar. It holds the registrar's side object, which stays
/// valid after the model is freed (and then removes nothing). Also says whether its
/// subscription has ended (disposed, or completed because the model was freed), for an observer
/// that holds it (see `_PropertySubscription`).
@usableFromInline
final class _ObserverRemoval: Disposable {
    @usableFromInline let side: _RegistrarSide
    @usableFromInline let slot: Int
    /// The registrar's token for the observer (stored right after it is added).
    @usableFromInline let token = Atomic<UInt64>(0)
    @usableFromInline let disposed = Atomic<Bool>(false)

    @usableFromInline
    init(side: _RegistrarSide, slot: Int) {
        self.side = side
        self.slot = slot
    }

    @inlinable
    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @usableFromInline
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        side.removeObserver(slot: slot, token: token.load(ordering: .acquiring))
    }

    /// Ends the subscription without removing the observer (the model is being freed, and
    /// removes every observer itself); false if it had already ended.
    @usableFromInline
    func end() -> Bool {
        !disposed.exchange(true, ordering: .acquiringAndReleasing)
    }
}

/// Makes the calling code the owner of `model`: its actor if it runs on one, else its thread.
/// Observers and bindings are then checked against it. Use it when you hand a model to
/// another thread or actor on purpose (and stop using it where it was). A model of a class
/// isolated to a global actor (`@MainActor @Model`) always belongs to that actor: `adopt`
/// leaves it there.
///
/// ```swift
/// queue.async { adopt(model); model.quantity = 2 }
/// ```
public func adopt<M: Model>(_ model: M) {
    model._$registrar.adoptByCaller()
}

/// The parts of a registrar that only a model with observers or bindings needs: made on first
/// use, so that a model that is only stored and loaded is one object (its registrar is inside).
///
/// Observers' removals (`_ObserverRemoval`) and bindings hold it, so it can outlive its model.
/// It reaches the registrar through `registrar`, the registrar's address inside the model,
/// only while the model lives: the registrar's `deinit` sets `ended` under the `slots` lock
/// before the model's memory is freed, and whatever reads `registrar` from another thread
/// checks `ended` under the same lock first.
@usableFromInline
final class _RegistrarSide: Sendable {
    @usableFromInline let slots: _Locked<[_Slot]>
    /// The owner's delivery views (see `ModelRegistrar`).
    @usableFromInline let delivery: _DeliveryState
    let lifetime = CompoundDisposable()
    /// The bridge to Swift's Observation (retained), made when Observation first needs it, or
    /// the box the registrar had before this object was made.
    @usableFromInline let _observation: Atomic<Unmanaged<_ObservationBox>?>
    /// The registrar, inside its model. Valid while `ended` is false, and read off the model's
    /// own code paths only under the `slots` lock after checking `ended` (see above): that is
    /// why this pointer, which is not `Sendable`, may be shared.
    nonisolated(unsafe) let registrar: UnsafePointer<ModelRegistrar>
    /// Set by the registrar's `deinit`, under the `slots` lock: the model is being freed.
    let ended = Atomic<Bool>(false)

    init(count: Int, registrar: UnsafePointer<ModelRegistrar>, observation box: _ObservationBox?) {
        slots = _Locked(Array(repeating: _Slot(), count: count))
        delivery = _DeliveryState(count: count)
        self.registrar = registrar
        _observation = Atomic(box.map { Unmanaged.passRetained($0) })
    }

    deinit {
        _observation.load(ordering: .acquiring)?.release()
    }

    /// The slot of every-property observers (the last one).
    var anySlot: Int { delivery.count - 1 }

    /// Observation's registrar, made now if it does not exist yet (the first one installed wins).
    @usableFromInline
    var observation: ObservationRegistrar {
        if let box = _observation.load(ordering: .acquiring) { return box._withUnsafeGuaranteedRef { $0.registrar } }
        let made = Unmanaged.passRetained(_ObservationBox())
        let (installed, current) = _observation.compareExchange(expected: nil, desired: made, ordering: .acquiringAndReleasing)
        if installed { return made._withUnsafeGuaranteedRef { $0.registrar } }
        made.release()
        return current!._withUnsafeGuaranteedRef { $0.registrar }
    }

    /// The model is being freed (called by its registrar's `deinit`): from now on nothing
    /// reads the registrar. Returns every registered observer and the delivery views, for the
    /// caller to end and release outside the lock (an observer's end runs user code). The
    /// views are emptied here, not when this object is freed: an observer that holds its
    /// removal, which holds this object, would otherwise keep both alive.
    func end() -> ([_SlotObserver], [_Delivery]) {
        slots.withLock { slots in
            ended.store(true, ordering: .relaxed)
            var observers: [_SlotObserver] = []
            for index in slots.indices { observers += slots[index].observers.removeAll() }
            var views: [_Delivery] = []
            for index in 0..<delivery.count {
                var view = _Delivery()
                swap(&view, &delivery.slots[index])
                if view.first != nil { views.append(view) }
            }
            return (observers, views)
        }
    }

    /// Adds an observer of property `index` (or of every property, for `nil`), returning the
    /// disposable that removes it. If the model has been freed meanwhile (the caller holds
    /// this object, not the model), the observer is ended at once instead.
    func addObserver(index: Int?, _ observer: _SlotObserver) -> any Disposable {
        let slot = index ?? anySlot
        let removal = _ObserverRemoval(side: self, slot: slot)
        guard let token = addObserver(slot: slot, observer) else {
            _ = removal.end()
            observer.onEnd(observer)
            return removal
        }
        removal.token.store(token, ordering: .releasing)
        return removal
    }

    /// Adds an observer to slot `slot`, returning its token; nil once the model is freed.
    func addObserver(slot: Int, _ observer: _SlotObserver) -> UInt64? {
        slots.withLock { slots -> UInt64? in
            guard !ended.load(ordering: .relaxed) else { return nil }
            let token = slots[slot].observers.insert(observer)
            slots[slot].version &+= 1
            registrar.pointee.watched.bitwiseOr(
                ModelRegistrar.staleBit | (slot == anySlot ? 1 << 63 : ModelRegistrar.slotBit(slot)), ordering: .relaxed)
            return token
        }
    }

    /// Removes the observer with `token` from slot `slot`, from any thread; nothing once the
    /// model is freed. On the owner, outside a delivery, the owner's view lets go of it at once;
    /// otherwise at the owner's next write of the model (or when the model is freed).
    func removeObserver(slot: Int, token: UInt64) {
        let (removed, onOwner) = slots.withLock { slots -> (_SlotObserver?, Bool) in
            guard !ended.load(ordering: .relaxed) else { return (nil, false) }
            let registrar = self.registrar
            guard let removed = slots[slot].observers.remove(token: token) else { return (nil, false) }
            slots[slot].version &+= 1
            if slots[slot].observers.isEmpty {
                // Recompute the bits from what is left.
                var bits = ModelRegistrar.staleBit
                for index in slots.indices where !slots[index].observers.isEmpty {
                    bits |= index == anySlot ? 1 << 63 : ModelRegistrar.slotBit(index)
                }
                registrar.pointee.watched.store(bits, ordering: .relaxed)
            } else {
                registrar.pointee.watched.bitwiseOr(ModelRegistrar.staleBit, ordering: .relaxed)
            }
            return (removed, registrar.pointee.isOnOwner)
        }
        if removed != nil, onOwner, delivery.depth == 0 {
            // On the owner, outside a delivery: drop the view's reference at once.
            _ = refresh(nil, anyInUse: false)
        }
        withExtendedLifetime(removed) {}
    }

    /// Copies the observer lists that changed into the owner's delivery views: those of
    /// property `index` and of every-property observers, or (`index == nil`) every slot not
    /// being delivered. Returns false if the every-property view is out of date but could not
    /// be replaced because `anyInUse`. Owner thread only; nothing once the model is freed.
    func refresh(_ index: Int?, anyInUse: Bool) -> Bool {
        let state = delivery
        let any = anySlot
        var garbage: [_Delivery] = []
        let anyUpToDate = slots.withLock { slots -> Bool in
            guard !ended.load(ordering: .relaxed) else { return true }
            func refresh(_ slot: Int) {
                guard state.slots[slot].version != slots[slot].version else { return }
                var view = _Delivery()
                view.version = slots[slot].version
                view.delivering = state.slots[slot].delivering
                view.dirty = state.slots[slot].dirty
                for entry in slots[slot].observers.entries {
                    guard let observer = entry.element else { continue }
                    if view.first == nil {
                        view.first = Unmanaged.passRetained(observer)
                    } else {
                        view.rest.append(Unmanaged.passRetained(observer))
                        view.hasRest = true
                    }
                }
                swap(&view, &state.slots[slot])
                if view.first != nil { garbage.append(view) }
            }
            if let index {
                refresh(index)
                if !anyInUse { refresh(any) }
            } else {
                for slot in slots.indices where slot == any ? state.depth == 0 : !state.slots[slot].delivering {
                    refresh(slot)
                }
            }
            if slots.indices.contains(where: { state.slots[$0].version != slots[$0].version }) {
                registrar.pointee.watched.bitwiseOr(ModelRegistrar.staleBit, ordering: .relaxed)
            } else {
                registrar.pointee.watched.bitwiseAnd(~ModelRegistrar.staleBit, ordering: .relaxed)
            }
            return state.slots[any].version == slots[any].version
        }
        // Released outside the lock: an observer's deinit may run user code.
        for index in garbage.indices { garbage[index].release() }
        return anyUpToDate
    }
}

/// Observation's registrar of one model, on its own: what a model read under the Observation
/// bridge needs, and nothing else (see `ModelRegistrar._side`).
@usableFromInline
final class _ObservationBox: Sendable {
    @usableFromInline let registrar = ObservationRegistrar()
    init() {}
}

/// What a persistence layer (TetherSQLite's store) installs on the registrar of each model it
/// holds: called on the owner after every change of a tracked property (at the same
/// point as every-property observers, so at the end of a transaction inside one), with the
/// model, its registrar and the property's index. One hook serves every model of a table: installing it
/// allocates nothing per model.
@usableFromInline
package final class _PersistenceHook: Sendable {
    @usableFromInline package let changed: @Sendable (AnyObject, borrowing ModelRegistrar, Int) -> Void
    /// The live model of row `id` of the given model type's table, loaded if it is not in memory
    /// (for a reference whose target was freed, see `_ModelReference`); nil if there is none.
    package let resolve: @Sendable (any Model.Type, Int64) -> AnyObject?
    /// Whether the models holding this hook have to-many collections that wait for their first
    /// use (see `ModelRegistrar.loadCollectionsIfNeeded`).
    @usableFromInline package let collectionsUnloaded: Bool
    /// Loads the to-many collections of a stored model on their first use; it installs a hook
    /// whose collections are loaded first.
    package let loadCollections: @Sendable (AnyObject, borrowing ModelRegistrar) -> Void
    /// How many models holding this hook have been freed (on any thread): the store sweeps
    /// its identity map of their entries once enough have ended.
    package let endedModels = Atomic<Int>(0)
    package init(
        changed: @escaping @Sendable (AnyObject, borrowing ModelRegistrar, Int) -> Void,
        resolve: @escaping @Sendable (any Model.Type, Int64) -> AnyObject? = { _, _ in nil },
        collectionsUnloaded: Bool = false,
        loadCollections: @escaping @Sendable (AnyObject, borrowing ModelRegistrar) -> Void = { _, _ in }
    ) {
        self.changed = changed
        self.resolve = resolve
        self.collectionsUnloaded = collectionsUnloaded
        self.loadCollections = loadCollections
    }
}
