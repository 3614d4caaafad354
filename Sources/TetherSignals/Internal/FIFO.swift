/// A first-in first-out queue with O(1) amortised `append` and `removeFirst`.
///
/// The pending queues of `_Gate` and `_SubjectCore`, zip's buffers and concat's waiting signals
/// use it: when many threads send at once,
/// the queue of the thread that delivers grows to thousands of events, and `Array.removeFirst`
/// (which moves every remaining element) made draining it quadratic.
///
/// Indices in `firstIndex(where:)` and `remove(at:)` count from the front of the queue.
@usableFromInline
struct _FIFO<Element> {
    /// Taken slots are nil until compaction, so the queue never keeps a taken element alive.
    @usableFromInline var storage: [Element?] = []
    @usableFromInline var head = 0

    @inlinable init() {}

    @inlinable var isEmpty: Bool { head == storage.count }

    @inlinable var count: Int { storage.count - head }

    /// The oldest element, if any.
    @inlinable var first: Element? { head < storage.count ? storage[head] : nil }

    @inlinable
    mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the oldest element; the queue must not be empty.
    @inlinable
    mutating func removeFirst() -> Element {
        precondition(head < storage.count, "removeFirst() on an empty queue")
        let element = storage[head].take()!
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes and returns the oldest element, or nil if the queue is empty.
    @inlinable
    mutating func popFirst() -> Element? {
        isEmpty ? nil : removeFirst()
    }

    /// The position (from the front) of the first element matching `predicate`.
    @inlinable
    func firstIndex(where predicate: (Element) throws -> Bool) rethrows -> Int? {
        for position in head..<storage.count where try predicate(storage[position]!) {
            return position - head
        }
        return nil
    }

    /// Removes and returns the element at `index` (counted from the front).
    @inlinable
    @discardableResult
    mutating func remove(at index: Int) -> Element {
        storage.remove(at: head + index)!
    }
}
