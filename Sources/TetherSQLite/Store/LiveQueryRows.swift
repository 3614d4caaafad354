// A live query's rows in order, kept in chunks so that a change edits a chunk, not the result.

/// The rows of a live query's result, in order: their ids and live models, in chunks of at most
/// `capacity`. Removing a row or inserting one after another costs a lookup by id and an edit of
/// one chunk (a split or a merge moves half a chunk), whatever the result's size; a result sent
/// (`snapshot`) shares the chunks, and a chunk still held by a subscriber is copied when edited.
///
/// Used on the store's thread only.
struct _LiveRows<M: AnyObject> {
    struct Chunk {
        /// Names the chunk while rows before it come and go (its place in `chunks` changes).
        var serial: UInt32
        var ids: ContiguousArray<Int64>
        var models: ContiguousArray<M>
    }

    /// The most rows a chunk holds; a fuller one is split in two.
    static var capacity: Int { 1024 }
    /// A chunk left with fewer rows joins a neighbour, if they fit together.
    static var minimum: Int { capacity / 8 }

    private(set) var chunks: [Chunk] = []
    /// The chunks' serials, place for place (searched without touching the chunks).
    private var serials: [UInt32] = []
    /// Each row's model and the serial of its chunk.
    private var entries: [Int64: (model: M, chunk: UInt32)] = [:]
    private var nextSerial: UInt32 = 0

    var count: Int { entries.count }

    /// The rows `ids` with their `models`, place for place, in chunks half full.
    init(ids: some Collection<Int64>, models: some Collection<M>) {
        precondition(ids.count == models.count)
        entries.reserveCapacity(ids.count)
        var chunk = newChunk()
        let half = Self.capacity / 2
        for (id, model) in zip(ids, models) {
            if chunk.ids.count == half {
                append(chunk)
                chunk = newChunk()
            }
            chunk.ids.append(id)
            chunk.models.append(model)
            entries[id] = (model, chunk.serial)
        }
        if !chunk.ids.isEmpty { append(chunk) }
    }

    private mutating func append(_ chunk: Chunk) {
        chunks.append(chunk)
        serials.append(chunk.serial)
    }

    private mutating func removeChunk(at index: Int) -> Chunk {
        serials.remove(at: index)
        return chunks.remove(at: index)
    }

    private mutating func newChunk() -> Chunk {
        defer { nextSerial &+= 1 }
        var chunk = Chunk(serial: nextSerial, ids: [], models: [])
        chunk.ids.reserveCapacity(Self.capacity / 2)
        chunk.models.reserveCapacity(Self.capacity / 2)
        return chunk
    }

    func model(_ id: Int64) -> M? { entries[id]?.model }

    /// Whether a row of `entry` is in the result.
    func touches(_ entry: _LogEntry, table: String) -> Bool { entry.touches(table, in: entries) }

    /// Every id, in order.
    var ids: [Int64] {
        var ids: [Int64] = []
        ids.reserveCapacity(count)
        for chunk in chunks { ids.append(contentsOf: chunk.ids) }
        return ids
    }

    /// The result as sent to subscribers: the chunks' models, shared.
    func snapshot() -> QueryResult<M> {
        var models: [ContiguousArray<M>] = []
        models.reserveCapacity(chunks.count)
        for index in chunks.indices { models.append(chunks[index].models) }
        return QueryResult(chunks: models)
    }

    private func place(_ id: Int64) -> (chunk: Int, index: Int)? {
        guard let serial = entries[id]?.chunk,
              let chunk = serials.firstIndex(of: serial),
              let index = chunks[chunk].ids.firstIndex(of: id) else { return nil }
        return (chunk, index)
    }

    /// Removes row `id` and returns its model (nil if it is not in the result).
    @discardableResult
    mutating func remove(_ id: Int64) -> M? {
        guard let (chunk, index) = place(id) else { return nil }
        let model = entries.removeValue(forKey: id)?.model
        chunks[chunk].ids.remove(at: index)
        chunks[chunk].models.remove(at: index)
        if chunks[chunk].ids.isEmpty {
            _ = removeChunk(at: chunk)
        } else if chunks[chunk].ids.count < Self.minimum {
            joinNeighbour(chunk)
        }
        return model
    }

    /// Inserts row `id` right after row `previous` (first when nil). Returns false, changing
    /// nothing, when `previous` is not in the result or `id` already is.
    mutating func insert(_ id: Int64, _ model: M, after previous: Int64?) -> Bool {
        guard entries[id] == nil else { return false }
        var chunk = 0
        var index = 0
        if let previous {
            guard let place = place(previous) else { return false }
            (chunk, index) = (place.chunk, place.index + 1)
        } else if chunks.isEmpty {
            append(newChunk())
        }
        chunks[chunk].ids.insert(id, at: index)
        chunks[chunk].models.insert(model, at: index)
        entries[id] = (model, chunks[chunk].serial)
        if chunks[chunk].ids.count > Self.capacity { split(chunk) }
        return true
    }

    /// Moves the second half of chunk `index` into a new chunk after it.
    private mutating func split(_ index: Int) {
        var second = newChunk()
        let half = chunks[index].ids.count / 2
        second.ids.append(contentsOf: chunks[index].ids[half...])
        second.models.append(contentsOf: chunks[index].models[half...])
        chunks[index].ids.removeSubrange(half...)
        chunks[index].models.removeSubrange(half...)
        for (id, model) in zip(second.ids, second.models) { entries[id] = (model, second.serial) }
        chunks.insert(second, at: index + 1)
        serials.insert(second.serial, at: index + 1)
    }

    /// Joins chunk `index` to the chunk before it (or after it), if both fit in one.
    private mutating func joinNeighbour(_ index: Int) {
        let count = chunks[index].ids.count
        if index > 0, chunks[index - 1].ids.count + count <= Self.capacity {
            let moved = removeChunk(at: index)
            chunks[index - 1].ids.append(contentsOf: moved.ids)
            chunks[index - 1].models.append(contentsOf: moved.models)
            let serial = chunks[index - 1].serial
            for (id, model) in zip(moved.ids, moved.models) { entries[id] = (model, serial) }
        } else if index + 1 < chunks.count, chunks[index + 1].ids.count + count <= Self.capacity {
            let moved = removeChunk(at: index)
            chunks[index].ids.insert(contentsOf: moved.ids, at: 0)
            chunks[index].models.insert(contentsOf: moved.models, at: 0)
            let serial = chunks[index].serial
            for (id, model) in zip(moved.ids, moved.models) { entries[id] = (model, serial) }
        }
    }
}
