import Observation
import Synchronization

/// What the registrar's side object keeps under its lock: the registered observers, and
/// whether the model has been freed.
struct _Registered {
    var table: _ObserverTable?
    var ended = false
}

/// What few models' side objects need, made on first need: the lifetime (bindings and other
/// work tied to the model), views replaced during a delivery, and the delivery flags of
/// properties 64 and up. Kept apart, the side object is one word smaller (112 bytes to malloc
/// rather than 128).
///
/// Why `@unchecked Sendable` is safe: `retired` and the flags that `wide` points to are touched
/// only on the model's owner (see `_RegistrarSide`); `lifetime` is itself `Sendable`.
@usableFromInline
final class _SideExtras: @unchecked Sendable {
    let lifetime: CompoundDisposable
    /// Views replaced while a delivery was running, released when the outermost one ends.
    @exclusivity(unchecked) var retired: [Unmanaged<_ObserverTable>] = []
    /// The delivery flags (bit 0: delivering; bit 1: dirty) of properties 64 and up, one byte
    /// each from property 64 on; nil for a model with fewer properties.
    @usableFromInline let wide: UnsafeMutablePointer<UInt8>?

    init(lifetime: CompoundDisposable = CompoundDisposable(), properties: Int) {
        self.lifetime = lifetime
        if properties > 64 {
            wide = .allocate(capacity: properties - 64)
            wide!.initialize(repeating: 0, count: properties - 64)
        } else {
            wide = nil
        }
    }

    deinit {
        wide?.deallocate()
    }
}

/// A lifetime that has ended: what a model freed before its lifetime was ever asked for hands
/// out (anything added to it is disposed at once).
let _endedLifetime: CompoundDisposable = {
    let lifetime = CompoundDisposable()
    lifetime.dispose()
    return lifetime
}()

/// The extras of every side object whose model was freed before it needed extras of its own:
/// its lifetime has ended, and it holds no views (nothing writes it).
let _endedExtras = _SideExtras(lifetime: _endedLifetime, properties: 0)

/// The parts of a registrar that only a model with observers or bindings needs: made on first
/// use, so that a model that is only stored and loaded is one object (its registrar is inside).
///
/// Observers and bindings hold it, so it can outlive its model. It reaches the registrar
/// through `registrar`, the registrar's address inside the model, only while the model lives:
/// the registrar's `deinit` sets `ended` under the lock before the model's memory is freed,
/// and whatever reads `registrar` from another thread checks `ended` under the same lock first.
///
/// Observers are registered in one table per model (`_ObserverTable`), under the lock, from
/// any thread. The owner delivers changes from its view of the table (`view`), without taking
/// the lock: registering or removing an observer makes a new table and sets the registrar's
/// `staleBit`, and the owner takes the new table as its view at its next write (or at once, for
/// an observer removed on the owner outside a delivery). A view replaced while a delivery may
/// still be calling its observers is kept (`retired`) until the outermost delivery ends.
///
/// Why `@unchecked Sendable` is safe: the `var` fields (`view`, `depth`, `delivering`, `dirty`,
/// and the extras' `retired` and `wide`) are touched only on the model's owner: models are confined to
/// their owner, a thread or an actor (see `ModelRegistrar.isOnOwner`; bindings, observation
/// subscriptions and writes that have anybody to tell check it), and notifications run
/// synchronously in the code that writes the model, so one thread, or one actor's serial
/// executor, reads and writes them. The registrar's `deinit` also takes them, when no other
/// code can reach the model. Everything else is immutable, atomic, or behind `registered`'s lock.
@usableFromInline
final class _RegistrarSide: @unchecked Sendable {
    /// The registered observers, and whether the model has been freed.
    let registered: Mutex<_Registered>
    /// How many deliveries of this registrar are running (nested: an observer that writes
    /// another property of the model starts one inside another). Owner only.
    // Only the owner ever touches the `var` fields (see above), so the dynamic exclusivity
    // check (a runtime call on every access) cannot find anything: it is off.
    @exclusivity(unchecked) @usableFromInline var depth: Int32 = 0
    /// The slot of every-property observers: the last one, after the properties'.
    @usableFromInline let _anySlot: Int32
    /// The owner's view: the table its deliveries call (retained), nil while nobody observes.
    @exclusivity(unchecked) @usableFromInline var view: Unmanaged<_ObserverTable>?
    /// Bit `i`: property `i` (below 64) is being delivered.
    @exclusivity(unchecked) @usableFromInline var delivering: UInt64 = 0
    /// Bit `i`: property `i` (below 64) changed again during its delivery: deliver its current
    /// value once more.
    @exclusivity(unchecked) @usableFromInline var dirty: UInt64 = 0
    /// The lifetime, the views replaced during a delivery and the flags of properties 64 and
    /// up (retained): made on first need, and with this object for a model of more than 64
    /// properties.
    @usableFromInline let _extras = Atomic<Unmanaged<_SideExtras>?>(nil)
    /// The bridge to Swift's Observation (retained), made when Observation first needs it, or
    /// the box the registrar had before this object was made.
    @usableFromInline let _observation: Atomic<Unmanaged<_ObservationBox>?>
    /// The registrar, inside its model. Valid while the model lives, and read off the model's
    /// own code paths only under the lock after checking `ended` (see above).
    let registrar: UnsafePointer<ModelRegistrar>

    init(count: Int, registrar: UnsafePointer<ModelRegistrar>, observation box: _ObservationBox?) {
        registered = Mutex(_Registered())
        _anySlot = Int32(count - 1)
        if count - 1 > 64 { _extras.store(Unmanaged.passRetained(_SideExtras(properties: count - 1)), ordering: .relaxed) }
        self.registrar = registrar
        _observation = Atomic(box.map { Unmanaged.passRetained($0) })
    }

    deinit {
        _observation.load(ordering: .acquiring)?.release()
        _extras.load(ordering: .acquiring)?.release()
    }

    /// The slot of every-property observers (the last one).
    @inlinable
    var anySlot: Int { Int(_anySlot) }

    /// Disposed when the model is freed: ends bindings and other work tied to the model.
    var lifetime: CompoundDisposable { extras.lifetime }

    /// The extras, made now if they do not exist yet (by any thread: the first one installed
    /// wins).
    var extras: _SideExtras {
        install(_SideExtras(properties: anySlot)).takeUnretainedValue()
    }

    /// The extras, if they were made.
    var existingExtras: _SideExtras? { _extras.load(ordering: .acquiring)?.takeUnretainedValue() }

    /// Installs `made` as the extras unless there are some already; returns those installed.
    private func install(_ made: @autoclosure () -> _SideExtras) -> Unmanaged<_SideExtras> {
        if let extras = _extras.load(ordering: .acquiring) { return extras }
        let made = Unmanaged.passRetained(made())
        let (installed, current) = _extras.compareExchange(expected: nil, desired: made, ordering: .acquiringAndReleasing)
        if installed { return made }
        made.release()
        return current!
    }

    /// The delivery flags of properties 64 and up (see `_SideExtras`).
    @usableFromInline
    var wide: UnsafeMutablePointer<UInt8> { _extras.load(ordering: .relaxed)!._withUnsafeGuaranteedRef { $0.wide! } }

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

    // MARK: Delivery flags (owner only)

    /// Whether property `index` is being delivered.
    @inlinable @inline(__always)
    func isDelivering(_ index: Int) -> Bool {
        if _fastPath(index < 64) { return delivering & (1 << UInt64(index)) != 0 }
        return wide[index - 64] & 1 != 0
    }

    /// Marks property `index` as being delivered, or not.
    @inlinable @inline(__always)
    func setDelivering(_ index: Int, _ on: Bool) {
        if _fastPath(index < 64) {
            if on { delivering |= 1 << UInt64(index) } else { delivering &= ~(1 << UInt64(index)) }
        } else {
            if on { wide[index - 64] |= 1 } else { wide[index - 64] &= ~1 }
        }
    }

    /// Whether property `index` changed again during its delivery.
    @inlinable @inline(__always)
    func isDirty(_ index: Int) -> Bool {
        if _fastPath(index < 64) { return dirty & (1 << UInt64(index)) != 0 }
        return wide[index - 64] & 2 != 0
    }

    /// Marks property `index` as changed during its delivery, or not.
    @inlinable @inline(__always)
    func setDirty(_ index: Int, _ on: Bool) {
        if _fastPath(index < 64) {
            if on { dirty |= 1 << UInt64(index) } else { dirty &= ~(1 << UInt64(index)) }
        } else {
            if on { wide[index - 64] |= 2 } else { wide[index - 64] &= ~2 }
        }
    }

    // MARK: Observers

    /// Adds an observer of property `index` (or of every property, for `nil`); the observer is
    /// the disposable that removes it. If the model has been freed meanwhile (the caller holds
    /// this object, not the model), the observer is ended at once instead.
    func addObserver(index: Int?, _ observer: _SlotObserver) -> any Disposable {
        if !addObserver(slot: index ?? anySlot, observer) {
            if observer.end() { observer.modelEnded() }
            observer.retire()
        }
        return observer
    }

    /// Adds an observer to slot `slot`; false once the model is freed.
    @usableFromInline
    func addObserver(slot: Int, _ observer: _SlotObserver) -> Bool {
        registered.withLock { state -> Bool in
            guard !state.ended else { return false }
            observer.register(self, slot: slot)
            _ObserverTable.insert(observer, slot: slot, into: &state.table)
            registrar.pointee.watched.bitwiseOr(
                ModelRegistrar.staleBit | (slot == anySlot ? 1 << 63 : ModelRegistrar.slotBit(slot)), ordering: .relaxed)
            return true
        }
    }

    /// Removes `observer` (which has ended) from slot `slot`, from any thread; nothing once the
    /// model is freed. On the owner, the observer leaves the table now, and lets go of what it
    /// holds; the owner's view lets go of it at once outside a delivery, else when the
    /// delivery ends. From another thread, the owner takes it out at its next write of the
    /// model (see `refresh`), or when the model is freed: the owner may be calling it.
    func removeObserver(_ observer: _SlotObserver, slot: Int) {
        let onOwner = registered.withLock { state -> Bool in
            guard !state.ended else { return false }
            guard registrar.pointee.isOnOwner else {
                registrar.pointee.watched.bitwiseOr(ModelRegistrar.staleBit, ordering: .relaxed)
                return false
            }
            let (removed, slotEmpty) = _ObserverTable.remove(observer, slot: slot, from: &state.table)
            guard removed else { return false }
            if slotEmpty {
                updateWatched(state.table)
            } else {
                registrar.pointee.watched.bitwiseOr(ModelRegistrar.staleBit, ordering: .relaxed)
            }
            return true
        }
        if onOwner {
            if depth == 0 { refresh() }
            // Ended: no delivery calls it any more (a delivery running now skips it).
            observer.retire()
        }
    }

    /// Sets the registrar's `watched` bits from what `table` holds (under the lock), with
    /// `staleBit` set.
    func updateWatched(_ table: _ObserverTable?) {
        var bits = ModelRegistrar.staleBit
        for slot in table?.slots ?? [] {
            bits |= slot == anySlot ? 1 << 63 : ModelRegistrar.slotBit(slot)
        }
        registrar.pointee.watched.store(bits, ordering: .relaxed)
    }

    /// The number of registered observers in slot `slot`.
    func observerCount(slot: Int) -> Int {
        registered.withLock { $0.table?.count(of: slot) ?? 0 }
    }

    /// Makes the registered table the owner's view, if it is not, after taking out of it the
    /// observers disposed on other threads (and letting go of what they hold). A view replaced
    /// during a delivery is kept until the outermost delivery ends (a delivery may still be
    /// calling its observers); then this releases it, and every view replaced before. Owner
    /// only; nothing once the model is freed. The views change under the lock, as in `end()`,
    /// which another thread may run (the model freed there while its owner disposes).
    func refresh() {
        var released: [Unmanaged<_ObserverTable>] = []
        var ended: [Unmanaged<_SlotObserver>] = []
        registered.withLock { state in
            guard !state.ended else { return }
            // Observers disposed on other threads leave the table here, on the owner.
            ended = _ObserverTable.removeEnded(from: &state.table)
            if !ended.isEmpty { updateWatched(state.table) }
            let table = state.table.map { Unmanaged.passUnretained($0) }
            if view?.toOpaque() != table?.toOpaque() {
                if let replaced = view {
                    if depth > 0 { extras.retired.append(replaced) } else { released.append(replaced) }
                }
                view = table.map { $0.retain() }
            }
            let extras = existingExtras
            if depth == 0, let extras, !extras.retired.isEmpty {
                released += extras.retired
                extras.retired = []
            }
            if depth > 0, extras?.retired.isEmpty == false {
                // Up to date, but with views to release when the deliveries end: the flag
                // brings the outermost one back here.
                registrar.pointee.watched.bitwiseOr(ModelRegistrar.staleBit, ordering: .relaxed)
            } else {
                registrar.pointee.watched.bitwiseAnd(~ModelRegistrar.staleBit, ordering: .relaxed)
            }
        }
        // Outside the lock: letting go of an observer may run user code (its closures' deinit).
        for observer in ended {
            observer._withUnsafeGuaranteedRef { $0.retire() }
            observer.release()
        }
        for view in released { view.release() }
    }

    /// The model is being freed (called by its registrar's `deinit`): from now on nothing
    /// reads the registrar. Returns the registered observers and the owner's views, for the
    /// caller to end and release outside the lock (an observer's end runs user code). The
    /// views are taken here, not when this object is freed: an observer holds this object, which
    /// would otherwise keep both alive.
    ///
    /// Each observer that leaves the table is retired once, by whoever takes it out: the owner
    /// (`removeObserver`, `refresh`), or the caller of this for those still in the table. The
    /// views hold no others that need it.
    func end() -> (registered: _ObserverTable?, views: [Unmanaged<_ObserverTable>]) {
        registered.withLock { state in
            state.ended = true
            let table = state.table
            state.table = nil
            // If nobody asked for the lifetime, whoever does from now on gets one that has ended.
            let extras = install(_endedExtras).takeUnretainedValue()
            var views = extras.retired
            if !views.isEmpty { extras.retired = [] }   // never written in the shared `_endedExtras`
            if let view { views.append(view) }
            view = nil
            return (table, views)
        }
    }
}
