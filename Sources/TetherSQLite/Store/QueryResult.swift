// The result a live query sends: its models in order, in chunks shared with the live query.

/// The models a live query found, in order: a random-access collection, used like an array.
///
/// A live query keeps its result in chunks, and a new result shares every chunk the change did
/// not touch with the one before. So a result of a million rows is sent again in microseconds
/// when one row changes, and holding on to an old result costs only the chunks changed since.
/// Indexing finds the chunk by binary search (a few steps); iterating walks the chunks.
///
/// ```swift
/// store.observe(Invoice.self, orderBy: \.number).subscribe(next: { invoices in
///     print(invoices.count, invoices.first?.number ?? 0)
///     for invoice in invoices where invoice.total > 100 { flag(invoice) }
/// })
/// ```
///
/// `Array(result)` copies it into an array when one is needed.
public struct QueryResult<Element>: RandomAccessCollection {
    /// The elements, chunk by chunk; no chunk is empty.
    @usableFromInline let chunks: [ContiguousArray<Element>]
    /// The position of each chunk's first element (as many as there are chunks).
    @usableFromInline let starts: [Int]

    public let count: Int

    /// A result of `elements`, in their order (one chunk).
    ///
    /// ```swift
    /// let empty = QueryResult<Invoice>()
    /// let two = QueryResult([first, second])
    /// ```
    public init(_ elements: some Sequence<Element>) {
        let chunk = ContiguousArray(elements)
        self.init(chunks: chunk.isEmpty ? [] : [chunk])
    }

    /// An empty result.
    public init() {
        self.init(chunks: [])
    }

    init(chunks: [ContiguousArray<Element>]) {
        var starts: [Int] = []
        starts.reserveCapacity(chunks.count)
        var count = 0
        for chunk in chunks {
            starts.append(count)
            count += chunk.count
        }
        self.chunks = chunks
        self.starts = starts
        self.count = count
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "QueryResult index \(position) out of range 0..<\(count)")
        // The last chunk that starts at or before `position`.
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return chunks[low][position - starts[low]]
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(chunks: chunks) }

    /// Walks the chunks in order.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let chunks: [ContiguousArray<Element>]
        @usableFromInline var chunk = 0
        @usableFromInline var index = 0

        @inlinable init(chunks: [ContiguousArray<Element>]) {
            self.chunks = chunks
        }

        @inlinable public mutating func next() -> Element? {
            while chunk < chunks.count {
                if index < chunks[chunk].count {
                    defer { index += 1 }
                    return chunks[chunk][index]
                }
                chunk += 1
                index = 0
            }
            return nil
        }
    }
}

extension QueryResult: ExpressibleByArrayLiteral {
    /// A result of the elements listed (for tests and previews: `let shown: QueryResult = [a, b]`).
    public init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

extension QueryResult: Sendable where Element: Sendable {}
extension QueryResult.Iterator: Sendable where Element: Sendable {}

extension QueryResult: Equatable where Element: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.elementsEqual(rhs) }
}

extension QueryResult: CustomStringConvertible {
    public var description: String { Array(self).description }
}
