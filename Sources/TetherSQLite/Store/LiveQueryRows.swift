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
    /// The serial of each row's chunk.
    private var chunkOf: [Int64: UInt32] = [:]
    private var nextSerial: UInt32 = 0

    var count: Int { chunkOf.count }

    /// The rows `ids` with their `models`, place for place, in chunks half full.
    init(ids: [Int64], models: [M]) {
        precondition(ids.count == models.count)
        chunkOf.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            let end = min(start + Self.capacity / 2, ids.count)
            var chunk = newChunk()
            chunk.ids.append(contentsOf: ids[start..<end])
            chunk.models.append(contentsOf: models[start..<end])
            for id in ids[start..<end] { chunkOf[id] = chunk.serial }
            append(chunk)
            start = end
        }
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
        return Chunk(serial: nextSerial, ids: [], models: [])
    }

    func contains(_ id: Int64) -> Bool { chunkOf[id] != nil }

    /// Every row's model by id (one pass).
    var modelsByID: [Int64: M] {
        var models: [Int64: M] = [:]
        models.reserveCapacity(count)
        for chunk in chunks {
            for (id, model) in zip(chunk.ids, chunk.models) { models[id] = model }
        }
        return models
    }

    /// Whether a row of `entry` is in the result.
    func touches(_ entry: _LogEntry, table: String) -> Bool { entry.touches(table, in: chunkOf) }

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
        guard let serial = chunkOf[id],
              let chunk = serials.firstIndex(of: serial),
              let index = chunks[chunk].ids.firstIndex(of: id) else { return nil }
        return (chunk, index)
    }

    /// Removes row `id` and returns its model (nil if it is not in the result).
    @discardableResult
    mutating func remove(_ id: Int64) -> M? {
        guard let (chunk, index) = place(id) else { return nil }
        chunkOf[id] = nil
        chunks[chunk].ids.remove(at: index)
        let model = chunks[chunk].models.remove(at: index)
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
        guard chunkOf[id] == nil else { return false }
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
        chunkOf[id] = chunks[chunk].serial
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
        for id in second.ids { chunkOf[id] = second.serial }
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
            for id in moved.ids { chunkOf[id] = serial }
        } else if index + 1 < chunks.count, chunks[index + 1].ids.count + count <= Self.capacity {
            let moved = removeChunk(at: index)
            chunks[index].ids.insert(contentsOf: moved.ids, at: 0)
            chunks[index].models.insert(contentsOf: moved.models, at: 0)
            let serial = chunks[index].serial
            for id in moved.ids { chunkOf[id] = serial }
        }
    }
}
