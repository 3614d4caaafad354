import CTetherThread
import Foundation

struct _RowKey: Hashable, Sendable {
    let table: String
    let id: Int64
}

/// A weak reference to a model, for the few the store remembers beside the identity map (the
/// parents of a fetch whose collections wait for their first use, parents whose new children
/// wait to be inserted); the identity map itself holds models by unowned counts.
struct _WeakModel {
    weak var model: AnyObject?
    init(_ model: AnyObject?) { self.model = model }
}

/// The identity map: the live model of each row, not kept alive by the map, by table (a
/// `_RowMap` each) then id.
struct _IdentityMap {
    private var tables: [String: _RowMap] = [:]

    subscript(key: _RowKey) -> AnyObject? {
        get { tables[key.table]?[key.id] }
        set {
            if let newValue {
                rows(key.table).set(newValue, for: key.id)
            } else {
                tables[key.table]?.remove(key.id)
            }
        }
    }

    /// The rows of `table` (made empty on first use), swept first if that is due. `endedModels`
    /// is how many of the table's models have been freed so far (`_Table.endedModels`).
    mutating func rows(_ table: String, endedModels: Int? = nil) -> _RowMap {
        if let rows = tables[table] {
            rows.sweepIfDue(endedModels: endedModels)
            return rows
        }
        let rows = _RowMap()
        tables[table] = rows
        return rows
    }

    /// The number of entries of `table` (live or not yet swept).
    func entryCount(_ table: String) -> Int { tables[table]?.count ?? 0 }

    /// Every live model, with its key.
    var live: [(key: _RowKey, model: AnyObject)] {
        var all: [(key: _RowKey, model: AnyObject)] = []
        for (table, rows) in tables {
            rows.forEachLive { id, model in all.append((_RowKey(table: table, id: id), model)) }
        }
        return all
    }
}

/// The live models of one table's rows, by id: in pages of 32 consecutive ids.
///
/// Row ids are mostly dense and ascending (SQLite gives a new row the largest id plus one), so
/// a page is looked up once for a run of rows (the last page used is kept), neighbouring rows
/// share cache lines, and nothing is hashed per row. (With a `Dictionary` of ids, every row
/// hashed and probed at a random place of a table of megabytes, entering 100,000 new models
/// took about 20 of the 75 ms that `TetherLatency profile-insert` measured for the insert.)
/// Sparse ids cost a page (264 bytes) each at worst. Pages of 32 rather than 16: for dense ids a
/// model costs 8.5 bytes of page and half as many of the dictionary's entries, and a big load
/// makes half as many pages (docs/PERFORMANCE.md: M1, P3); loads of scattered ids (P3b) measured
/// no different.
///
/// A slot holds its model by an unowned count (`tether_reference_retain`), not a `weak`
/// reference: a weak reference would give every stored model a side table (48 bytes more per
/// model) and send each of its retains and releases down the runtime's slow path. A model that
/// ends leaves the memory of its object (its fields are freed) until the map drops the count.
///
/// Entries of freed models are swept out when the store next uses the map (an insert, a fetch,
/// a load: never in the middle of one, whose own models are all alive) once it has doubled
/// since the last sweep, or once as many of the table's models as half its entries have been
/// freed since then (the registrar of a freed model counts it on its hook): amortised, and a
/// long-running app that loads and drops rows keeps a map, and the memory of freed models, in
/// proportion to what it holds.
///
/// Confined to the store's thread (and to the writer queue while that thread waits: see
/// `_WhileWaiting`). Its models may end on any thread: the runtime's counts are atomic.
final class _RowMap {
    static let pageShift: Int64 = 5
    static let pageSize = 1 << Int(pageShift)
    /// An id's slot in its page.
    static let slotMask = Int64(pageSize - 1)

    /// One page: a word whose bit `i` is set while slot `i` holds a model (live, or ended and
    /// not yet swept), then 32 slots, for ids `number << 5 ..< (number + 1) << 5`.
    /// Raw memory rather than an object: finding a page and writing a slot retains nothing.
    struct Page {
        let base: UnsafeMutableRawPointer

        static let slotsOffset = 8
        static let byteCount = slotsOffset + _RowMap.pageSize * MemoryLayout<UnsafeMutableRawPointer?>.stride

        static func make() -> Page {
            let base = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 8)
            base.initializeMemory(as: UInt64.self, repeating: 0, count: 1)
            (base + slotsOffset).initializeMemory(as: UnsafeMutableRawPointer?.self, repeating: nil, count: _RowMap.pageSize)
            return Page(base: base)
        }

        /// Drops the page's models and frees it.
        func free() {
            var bits = occupied.pointee
            while bits != 0 {
                let index = bits.trailingZeroBitCount
                bits &= bits - 1
                if let object = slots[index] { tether_reference_release(object) }
            }
            base.deallocate()
        }

        var occupied: UnsafeMutablePointer<UInt64> { base.assumingMemoryBound(to: UInt64.self) }
        /// Each model's address, held by an unowned count (nil: empty).
        var slots: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
            (base + Self.slotsOffset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        }
    }

    private var pages: [Int64: Page] = [:]
    /// The pages the last sweep emptied, for new pages until the next sweep (which frees those
    /// still unused): loads scattered over a table would otherwise allocate a page for most
    /// rows, and free it at the next sweep.
    private var spare: [Page] = []
    /// The page used last, and its number.
    private var lastNumber: Int64 = .min
    private var lastPage: Page?
    /// Slots holding a model, in every page.
    private(set) var count = 0
    /// `count` after the last sweep.
    private var swept = 0
    /// The table's count of freed models at the last sweep.
    private var endedAtSweep = 0

    init() {}

    deinit {
        for page in pages.values { page.free() }
        for page in spare { page.free() }
    }

    @inline(__always)
    private func page(_ number: Int64) -> Page? {
        if number == lastNumber { return lastPage }
        guard let page = pages[number] else { return nil }
        lastNumber = number
        lastPage = page
        return page
    }

    /// The model in `slot`, if it is still alive.
    @inline(__always)
    private static func live(_ slot: UnsafeMutableRawPointer?) -> AnyObject? {
        guard let object = slot, tether_reference_try_retain(object) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(object).takeRetainedValue()
    }

    /// The live model of row `id`, if there is one.
    subscript(id: Int64) -> AnyObject? {
        guard let page = page(id >> Self.pageShift) else { return nil }
        return Self.live(page.slots[Int(id & Self.slotMask)])
    }

    /// Makes `model` the live model of row `id`.
    func set(_ model: AnyObject, for id: Int64) {
        let number = id >> Self.pageShift
        let page: Page
        if let existing = self.page(number) {
            page = existing
        } else {
            page = spare.popLast() ?? Page.make()
            pages[number] = page
            lastNumber = number
            lastPage = page
        }
        let index = Int(id & Self.slotMask)
        let bit: UInt64 = 1 << UInt64(index)
        let object = Unmanaged.passUnretained(model).toOpaque()
        tether_reference_retain(object)
        if page.occupied.pointee & bit == 0 {
            page.occupied.pointee |= bit
            count += 1
        } else if let previous = page.slots[index] {
            tether_reference_release(previous)
        }
        page.slots[index] = object
    }

    /// Forgets row `id`.
    func remove(_ id: Int64) {
        guard let page = page(id >> Self.pageShift) else { return }
        let index = Int(id & Self.slotMask)
        let bit: UInt64 = 1 << UInt64(index)
        guard page.occupied.pointee & bit != 0 else { return }
        if let previous = page.slots[index] { tether_reference_release(previous) }
        page.slots[index] = nil
        page.occupied.pointee &= ~bit
        count -= 1
    }

    /// Calls `body` with each live model and its id.
    func forEachLive(_ body: (Int64, AnyObject) -> Void) {
        for (number, page) in pages {
            var bits = page.occupied.pointee
            while bits != 0 {
                let index = bits.trailingZeroBitCount
                bits &= bits - 1
                if let model = Self.live(page.slots[index]) { body(number << Self.pageShift | Int64(index), model) }
            }
        }
    }

    /// Sweeps if the map has doubled since the last sweep (and holds 2,048 entries or more), or
    /// if `endedModels` (the table's count of freed models) has grown since by half the entries
    /// (and 1,024 or more).
    func sweepIfDue(endedModels: Int? = nil) {
        let endedSince = endedModels.map { $0 - endedAtSweep } ?? 0
        if count >= 2 * max(swept, 1024) || endedSince >= max(count / 2, 1024) {
            sweep()
            if let endedModels { endedAtSweep = endedModels }
        }
    }

    /// Drops the entries of ended models (which frees what is left of them), and the pages left
    /// empty (kept as spares until the next sweep).
    private func sweep() {
        for page in spare { page.free() }
        spare.removeAll(keepingCapacity: true)
        var emptied: [Int64] = []
        for (number, page) in pages {
            var bits = page.occupied.pointee
            while bits != 0 {
                let index = bits.trailingZeroBitCount
                bits &= bits - 1
                if let object = page.slots[index], tether_reference_has_ended(object) {
                    tether_reference_release(object)
                    page.slots[index] = nil
                    page.occupied.pointee &= ~(1 << UInt64(index))
                    count -= 1
                }
            }
            if page.occupied.pointee == 0 { emptied.append(number) }
        }
        for number in emptied {
            // An emptied page's slots are all empty again: reusable as it is.
            if let page = pages.removeValue(forKey: number) { spare.append(page) }
        }
        lastNumber = .min
        lastPage = nil
        swept = count
    }
}
