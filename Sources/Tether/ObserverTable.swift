import Synchronization

/// One observer of one tracked property of a model (or of every property), as the model's
/// registrar keeps it; also a disposable that removes it (a stored property's subscriber holds
/// a `_SubscriptionDisposal` instead, see `_PropertySubscription`).
///
/// `onChange` says what a change does: it receives the observer itself, the property's index
/// and a pointer to its new value, valid only during the call (so a stored-property observer
/// can read the value without boxing it). A closure, not a method: made in code specialised
/// for the value's type (`@inlinable` initialisers), it reads the value without the generic
/// code a generic subclass's method would run (W5a: 9.7 ns per set against 13.0); one that
/// captures nothing (it finds what it needs in the observer) costs no allocation. A `let`: a
/// delivery calls it without retaining it. A subclass says what the end of the model does
/// (`modelEnded`), and drops its `var` closures once the registrar has taken the observer out
/// of its table (`retire`, called once, by whoever took it out).
///
/// `_state` holds the registrar's side object (retained by the observer) while the observer is
/// registered, its slot in the top 16 bits, and, in bit 0, whether it has ended: disposed, or
/// its model freed.
///
/// Why `@unchecked Sendable` is safe: `_state` is atomic, and the fields that subclasses add
/// are read and cleared only on the model's owner (deliveries and `retire` run there), or while
/// the model is being freed, when no delivery can run (see `_RegistrarSide.end`).
@usableFromInline
package class _SlotObserver: Disposable, @unchecked Sendable {
    @usableFromInline final let _state = Atomic<UInt>(0)
    /// Called on the model's owner when the property changes, while the observer has not
    /// ended (see above).
    @usableFromInline final let onChange: @Sendable (_SlotObserver, Int, UnsafeRawPointer) -> Void

    @inlinable
    package init(onChange: @escaping @Sendable (_SlotObserver, Int, UnsafeRawPointer) -> Void) {
        self.onChange = onChange
    }

    /// The model was freed (called once, unless the observer was disposed first).
    @usableFromInline
    package func modelEnded() {}

    /// The registrar has taken the observer out of its table and will not call it again: drop
    /// the closures it holds in `var`s.
    @usableFromInline
    package func retire() {}

    /// Whether the observer has ended: disposed, or its model freed.
    public final var isDisposed: Bool { _state.load(ordering: .acquiring) & 1 != 0 }

    /// The same, for the registrar's deliveries on the owner (which set nothing it reads).
    @inlinable @inline(__always)
    final var isLive: Bool { _state.load(ordering: .relaxed) & 1 == 0 }

    /// Removes the observer from its model's registrar: at once from the registered observers;
    /// the owner lets go of it at its next write of the model (at once when called there).
    public final func dispose() {
        let old = _state.bitwiseOr(1, ordering: .acquiringAndReleasing).oldValue
        guard old & 1 == 0, let side = Self.side(old) else { return }
        side._withUnsafeGuaranteedRef { $0.removeObserver(self, slot: Int(old >> 48)) }
        side.release()
    }

    /// Registers the observer with `side` in slot `slot` (under the side object's lock).
    final func register(_ side: _RegistrarSide, slot: Int) {
        let address = UInt(bitPattern: Unmanaged.passRetained(side).toOpaque())
        precondition(address & ~ModelRegistrar.addressBits == 0, "Tether: an object's address does not fit in 48 bits")
        _state.store(UInt(slot) << 48 | address, ordering: .releasing)
    }

    /// Ends the observer because its model was freed (or was freed before it could be
    /// registered); true if it had not ended before, when the caller calls `modelEnded()`.
    final func end() -> Bool {
        let old = _state.bitwiseOr(1, ordering: .acquiringAndReleasing).oldValue
        guard old & 1 == 0 else { return false }
        Self.side(old)?.release()
        return true
    }

    /// The side object held in `state` (a value of `_state`), if any.
    static func side(_ state: UInt) -> Unmanaged<_RegistrarSide>? {
        UnsafeRawPointer(bitPattern: state & ModelRegistrar.addressBits & ~1).map { Unmanaged.fromOpaque($0) }
    }
}

/// An observer made of two closures: `onChange` (see `_SlotObserver`) and one for the end of
/// the model, released when the observer retires. `onChange` goes with the object: what holds
/// it beside the registrar (a subscription's lifetime, a dependency recorder) lets go of it when
/// the subscription ends.
///
/// Why `@unchecked Sendable` is safe: see `_SlotObserver` (the closures are read and cleared
/// only on the owner, or while the model is being freed).
@usableFromInline
final class _ClosureObserver: _SlotObserver, @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline var onEnd: (@Sendable () -> Void)?

    @inlinable
    init(onChange: @escaping @Sendable (_SlotObserver, Int, UnsafeRawPointer) -> Void, onEnd: @escaping @Sendable () -> Void) {
        self.onEnd = onEnd
        super.init(onChange: onChange)
    }

    @usableFromInline
    override func modelEnded() {
        onEnd?()
    }

    @usableFromInline
    override func retire() {
        onEnd = nil
    }
}

/// One registered observer: its slot (a property's index, or the registrar's last slot for
/// observers of every property) and the observer, retained by the table that holds the entry.
@usableFromInline
struct _ObserverEntry {
    @usableFromInline let slot: Int
    @usableFromInline let observer: Unmanaged<_SlotObserver>
}

/// Every observer of one model, in one buffer, ordered by slot and, within a slot, by
/// registration: one allocation for all of a model's observers, where a list per property
/// took one each.
///
/// The registrar's side object keeps the registered table (changed under its lock) and the
/// owner's delivery view, which is the same table until somebody registers or removes an
/// observer: a table that a view holds is never changed in place (it is not uniquely
/// referenced), a change makes a new one, and the owner takes it as its view at its next write.
/// So a delivery calls the observers of a table that nothing changes under it, without a lock.
@usableFromInline
final class _ObserverTable: ManagedBuffer<Int, _ObserverEntry> {
    /// A table with room for `capacity` entries and none yet.
    static func make(capacity: Int) -> _ObserverTable {
        unsafeDowncast(create(minimumCapacity: capacity) { _ in 0 }, to: _ObserverTable.self)
    }

    deinit {
        withUnsafeMutablePointers { count, entries in
            for position in 0..<count.pointee { entries[position].observer.release() }
            entries.deinitialize(count: count.pointee)
        }
    }

    /// The number of entries.
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee } }

    /// The position of the first entry with a slot after `slot` (`after`) or not before it.
    static func bound(_ slot: Int, in entries: UnsafeMutablePointer<_ObserverEntry>, count: Int, after: Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].slot < slot || after && entries[middle].slot == slot { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Calls the live observers of slot `slot` with property `index`'s value at `value`. The
    /// table is not changed meanwhile (see above), and the caller keeps it alive. Inlined for a
    /// table of up to four observers (most models have a few); bigger ones go out of line.
    @inlinable @inline(__always)
    func call(slot: Int, index: Int, _ value: UnsafeRawPointer) {
        // Through the pointers: `header`, a stored property, would be read with a dynamic
        // exclusivity check (a runtime call).
        let done = withUnsafeMutablePointers { count, entries in
            let count = count.pointee
            if count > 4 { return false }
            var position = 0
            while position < count, entries[position].slot < slot { position &+= 1 }
            while position < count, entries[position].slot == slot {
                Self.call(entries[position].observer, index, value)
                position &+= 1
            }
            return true
        }
        if !done { callMany(slot: slot, index: index, value) }
    }

    /// `call` for a table of any size.
    @usableFromInline @inline(never)
    func callMany(slot: Int, index: Int, _ value: UnsafeRawPointer) {
        withUnsafeMutablePointers { count, entries in
            let count = count.pointee
            var position = Self.start(of: slot, in: entries, count: count)
            while position < count, entries[position].slot == slot {
                Self.call(entries[position].observer, index, value)
                position += 1
            }
        }
    }

    /// Calls `observer` unless it has ended.
    @inlinable @inline(__always)
    static func call(_ observer: Unmanaged<_SlotObserver>, _ index: Int, _ value: UnsafeRawPointer) {
        observer._withUnsafeGuaranteedRef { if $0.isLive { $0.onChange($0, index, value) } }
    }

    /// The position of the first entry of slot `slot` or of a later slot.
    @inline(__always)
    static func start(of slot: Int, in entries: UnsafeMutablePointer<_ObserverEntry>, count: Int) -> Int {
        if count <= 8 {
            var position = 0
            while position < count, entries[position].slot < slot { position += 1 }
            return position
        }
        return bound(slot, in: entries, count: count, after: false)
    }

    /// The number of live observers in slot `slot`.
    func count(of slot: Int) -> Int {
        withUnsafeMutablePointers { count, entries in
            let start = Self.bound(slot, in: entries, count: count.pointee, after: false)
            let end = Self.bound(slot, in: entries, count: count.pointee, after: true)
            return (start..<end).count { entries[$0].observer._withUnsafeGuaranteedRef { $0.isLive } }
        }
    }

    /// The slots that have observers.
    var slots: Set<Int> {
        withUnsafeMutablePointers { count, entries in Set((0..<count.pointee).map { entries[$0].slot }) }
    }

    /// The observers, in order.
    var observers: [_SlotObserver] {
        withUnsafeMutablePointers { count, entries in (0..<count.pointee).map { entries[$0].observer.takeUnretainedValue() } }
    }

    /// A copy of `table`'s entries (each observer retained again) with room for `capacity`, and
    /// with `insert` placed at `position` or the entry at `position` left out (`removing`).
    static func copy(
        of table: _ObserverTable?, capacity: Int, inserting insert: _ObserverEntry? = nil, at position: Int, removing: Bool = false
    ) -> _ObserverTable {
        let made = make(capacity: capacity)
        made.withUnsafeMutablePointers { newCount, target in
            var written = 0
            table?.withUnsafeMutablePointers { count, source in
                for index in 0..<count.pointee {
                    if index == position {
                        if let insert { (target + written).initialize(to: insert); written += 1 }
                        if removing { continue }
                    }
                    _ = source[index].observer.retain()
                    (target + written).initialize(to: source[index])
                    written += 1
                }
            }
            if let insert, position == (table?.count ?? 0) { (target + written).initialize(to: insert); written += 1 }
            newCount.pointee = written
        }
        return made
    }

    /// Adds `observer` (retained) to slot `slot` of `table`, after the slot's other observers:
    /// in place if nothing else holds the table and it has room, else in a new table.
    static func insert(_ observer: _SlotObserver, slot: Int, into table: inout _ObserverTable?) {
        let entry = _ObserverEntry(slot: slot, observer: Unmanaged.passRetained(observer))
        guard table != nil else {
            table = copy(of: nil, capacity: 1, inserting: entry, at: 0)
            return
        }
        let count = table!.count
        let position = table!.withUnsafeMutablePointers { count, entries in bound(slot, in: entries, count: count.pointee, after: true) }
        if isKnownUniquelyReferenced(&table!), table!.capacity > count {
            table!.withUnsafeMutablePointers { count, entries in
                (entries + position + 1).moveInitialize(from: entries + position, count: count.pointee - position)
                (entries + position).initialize(to: entry)
                count.pointee += 1
            }
        } else {
            // Room to grow when nothing else holds the table; exactly enough when the owner's
            // view holds it (the owner will hold the new one as it is).
            let unique = isKnownUniquelyReferenced(&table!)
            table = copy(of: table, capacity: unique ? 2 * count : count + 1, inserting: entry, at: position)
        }
    }

    /// Removes the observers that have ended from `table` (in place if nothing else holds it),
    /// and returns them, retained: the caller lets go of them outside the lock.
    static func removeEnded(from table: inout _ObserverTable?) -> [Unmanaged<_SlotObserver>] {
        guard table != nil else { return [] }
        let ended = table!.withUnsafeMutablePointers { count, entries in
            (0..<count.pointee).filter { !entries[$0].observer._withUnsafeGuaranteedRef { $0.isLive } }
        }
        guard !ended.isEmpty else { return [] }
        let removed = table!.withUnsafeMutablePointers { _, entries in ended.map { entries[$0].observer.retain() } }
        if ended.count == table!.count {
            table = nil
            return removed
        }
        let kept = make(capacity: table!.count - ended.count)
        table!.withUnsafeMutablePointers { count, source in
            kept.withUnsafeMutablePointers { keptCount, target in
                var written = 0
                var next = 0
                for index in 0..<count.pointee {
                    if next < ended.count, ended[next] == index {
                        next += 1
                        continue
                    }
                    _ = source[index].observer.retain()
                    (target + written).initialize(to: source[index])
                    written += 1
                }
                keptCount.pointee = written
            }
        }
        table = kept
        return removed
    }

    /// Removes `observer` from slot `slot` of `table` (in place if nothing else holds it);
    /// returns whether it was there, and whether the slot is now empty.
    static func remove(_ observer: _SlotObserver, slot: Int, from table: inout _ObserverTable?) -> (removed: Bool, slotEmpty: Bool) {
        guard table != nil else { return (false, false) }
        let found = table!.withUnsafeMutablePointers { count, entries -> (position: Int, others: Int)? in
            let start = bound(slot, in: entries, count: count.pointee, after: false)
            let end = bound(slot, in: entries, count: count.pointee, after: true)
            guard let position = (start..<end).first(where: { entries[$0].observer.toOpaque() == Unmanaged.passUnretained(observer).toOpaque() })
            else { return nil }
            return (position, end - start - 1)
        }
        guard let found else { return (false, false) }
        if table!.count == 1 {
            table = nil
        } else if isKnownUniquelyReferenced(&table!) {
            table!.withUnsafeMutablePointers { count, entries in
                entries[found.position].observer.release()
                (entries + found.position).deinitialize(count: 1)
                (entries + found.position).moveInitialize(from: entries + found.position + 1, count: count.pointee - found.position - 1)
                count.pointee -= 1
            }
        } else {
            table = copy(of: table, capacity: table!.count - 1, at: found.position, removing: true)
        }
        return (true, found.others == 0)
    }
}
