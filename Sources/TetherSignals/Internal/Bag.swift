/// An ordered collection with O(1) amortised insertion and O(log n) removal by token.
///
/// Tokens increase monotonically, so entries stay sorted by token and removal finds its entry by
/// binary search; a removed entry becomes a tombstone and tombstones are compacted once they
/// outnumber live entries. Subscribing therefore costs the same whether 10 or 100,000
/// subscriptions are alive (benchmark W7).
@usableFromInline
package struct _Bag<Element> {
    @usableFromInline
    package struct Entry {
        @usableFromInline package let token: UInt64
        @usableFromInline package var element: Element?
        @inlinable package init(token: UInt64, element: Element?) {
            self.token = token
            self.element = element
        }
    }

    @usableFromInline package var entries: ContiguousArray<Entry> = []
    @usableFromInline var nextToken: UInt64 = 0
    @usableFromInline var tombstones = 0

    @inlinable package init() {}

    /// The number of live elements.
    @inlinable package var count: Int { entries.count - tombstones }

    @inlinable package var isEmpty: Bool { count == 0 }

    /// Inserts `element` and returns the token that removes it.
    @inlinable
    package mutating func insert(_ element: Element) -> UInt64 {
        let token = nextToken
        nextToken &+= 1
        entries.append(Entry(token: token, element: element))
        return token
    }

    /// Reserves a token without inserting anything yet (for insertion that is deferred).
    @inlinable
    package mutating func reserveToken() -> UInt64 {
        let token = nextToken
        nextToken &+= 1
        return token
    }

    /// Inserts `element` under a token obtained from `reserveToken()` (tokens must still arrive
    /// in increasing order, which holds when reservations are inserted in the order made).
    @inlinable
    package mutating func insert(_ element: Element, token: UInt64) {
        if let last = entries.last, last.token > token {
            // Out of order (should not happen); keep the array sorted anyway.
            let index = entries.firstIndex { $0.token > token } ?? entries.endIndex
            entries.insert(Entry(token: token, element: element), at: index)
        } else {
            entries.append(Entry(token: token, element: element))
        }
    }

    /// Removes the element inserted under `token`; returns it, or nil if it was already gone.
    @inlinable
    @discardableResult
    package mutating func remove(token: UInt64) -> Element? {
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].token < token { low = mid + 1 } else { high = mid }
        }
        guard low < entries.count, entries[low].token == token, let element = entries[low].element else {
            return nil
        }
        entries[low].element = nil
        tombstones += 1
        if tombstones > 16 && tombstones * 2 > entries.count {
            entries.removeAll { $0.element == nil }
            tombstones = 0
        }
        return element
    }

    /// Removes everything and returns the live elements in insertion order.
    @inlinable
    package mutating func removeAll() -> [Element] {
        let elements = entries.compactMap(\.element)
        entries = []
        tombstones = 0
        return elements
    }
}

extension _Bag.Entry: Sendable where Element: Sendable {}
extension _Bag: Sendable where Element: Sendable {}
