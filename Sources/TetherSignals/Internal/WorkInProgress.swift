import CTetherThread
import Synchronization

/// A work-in-progress counter that serialises the work of many threads without a lock (the
/// queue-drain pattern of RxJava's serialized emitters, without holding anything while the
/// work runs).
///
/// The counter is 0 when nobody owns the object it guards. A thread that moves it from 0 to
/// non-zero becomes the *owner*: it alone may touch the owned state (the subscribers of a
/// subject, the closed flag of a gate...) until it brings the counter back to 0. Every other
/// thread — including the owner itself when it re-enters from a callback — puts its work in a
/// pending queue FIRST and then increments the counter; the owner sees the increment when it
/// tries to release and drains the queue before it gives up ownership.
///
/// The protocol, for one piece of work:
/// ```
/// if tryClaim() { do the work; missed = tryRelease() }      // fast path: 2 atomic RMWs
/// else { queue the work; missed = join() ? 1 : 0 }
/// while missed != 0 { run everything queued; missed = leave(missed) }
/// ```
///
/// Invariant: every increment made by `join()` follows the enqueueing of one piece of work.
/// The owner releases only with a read-modify-write that brings the counter to exactly 0, after
/// it has drained the queue past every increment it has observed; so when the counter is 0,
/// every piece of work whose increment happened has been run, and work whose increment has not
/// happened yet will make its own thread the next owner (`join()` returns true).
///
/// Memory ordering: a release RMW to 0 and the acquire RMW that next leaves 0 synchronise, so
/// each owner sees everything the previous owners wrote to the owned state. The queue has its
/// own lock.
///
/// Control mode (subjects only; see `control`): an owner that runs a short step calling nobody
/// (subscribing, disposing) sets a flag in the counter while it holds a lock; a sender that sees
/// the flag waits for that lock instead of queueing, so the step never defers a send. The flag
/// changes nothing above: the low bits still count announcements, and the owner still releases
/// only by bringing the whole counter to 0.
@usableFromInline
struct _WorkInProgress: ~Copyable {
    @usableFromInline let count = Atomic<Int>(0)

    @inlinable init() {}

    /// Becomes the owner if nobody is; a failed claim changes nothing.
    @inlinable @inline(__always)
    func tryClaim() -> Bool {
        count.load(ordering: .relaxed) == 0
            && count.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
    }

    /// Tries to give up ownership after a claim (counter at 1). Returns 0 if released; otherwise
    /// work was queued meanwhile, the caller is still the owner and must drain, passing the
    /// returned count to `leave(_:)` after draining.
    @inlinable @inline(__always)
    func tryRelease() -> Int {
        let (exchanged, original) = count.compareExchange(
            expected: 1, desired: 0, successOrdering: .releasing, failureOrdering: .acquiring)
        return exchanged ? 0 : original
    }

    /// Announces work that was just queued. Returns true if the caller became the owner (the
    /// counter was 0) and must drain, then call `leave(1)`.
    @inlinable @inline(__always)
    func join() -> Bool {
        count.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0
    }

    /// After draining everything queued, subtracts the `missed` announcements the owner has
    /// accounted for. Returns the new count: 0 if ownership was given up, otherwise more work
    /// was announced meanwhile and the owner must drain again with the returned count.
    ///
    /// An owner's thread tag (`tryClaim(tag:)`) stays in the counter until it gives up
    /// ownership: the owner is the same thread all along.
    @inlinable @inline(__always)
    func leave(_ missed: Int) -> Int {
        var current = count.load(ordering: .relaxed)
        while true {
            let remaining = (current & ~Self.tagMask) - missed
            let (exchanged, original) = count.compareExchange(
                expected: current, desired: remaining == 0 ? 0 : current - missed, ordering: .acquiringAndReleasing)
            if exchanged { return remaining }
            current = original
        }
    }

    // MARK: Tagged claims

    /// Where an owner's thread tag goes (bits 32-47; announcements count in bits 0-31).
    @inlinable static var tagMask: Int { 0xFFFF << 32 }

    /// The calling thread's tag: 16 bits of a hash of its id, never 0. Two threads may share
    /// a tag; whoever reads one only uses it to decide not to wait (see `tag(of:)`).
    @inlinable @inline(__always)
    static var currentThreadTag: Int {
        let hash = (UInt(tether_thread_id()) >> 3) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: (hash >> 48) | 1) << 32
    }

    /// The tag of the thread that owns the counter, if it claimed with `tryClaim(tag:)` (the
    /// tag stays until it gives up ownership); otherwise 0.
    @inlinable @inline(__always)
    static func tag(of value: Int) -> Int { value & tagMask }

    /// `tryClaim()`, leaving the owner's thread tag in the counter: a thread that then finds the
    /// counter owned can tell that it is (probably) the owner itself, re-entering from a
    /// callback. The tag costs no memory access: it is part of the claim.
    @inlinable @inline(__always)
    func tryClaim(tag: Int) -> Bool {
        count.load(ordering: .relaxed) == 0
            && count.compareExchange(expected: 0, desired: tag | 1, ordering: .acquiring).exchanged
    }

    /// `tryRelease()` after `tryClaim(tag:)`. The count it returns leaves the tag out (it stays
    /// in the counter while the owner drains, see `leave(_:)`).
    @inlinable @inline(__always)
    func tryRelease(tag: Int) -> Int {
        let (exchanged, original) = count.compareExchange(
            expected: tag | 1, desired: 0, successOrdering: .releasing, failureOrdering: .acquiring)
        return exchanged ? 0 : original & ~Self.tagMask
    }

    // MARK: Control mode

    /// The flag of control mode: the owner runs a short step that calls nobody (subscribing
    /// to, or disposing from, a subject) while holding a lock, so that others may wait for it
    /// instead of queueing their work. Only set by a thread holding that lock; the low bits
    /// keep counting announcements as usual.
    @inlinable static var control: Int { 1 << 48 }

    /// Whether a counter value says the owner is in control mode.
    @inlinable @inline(__always)
    static func isControl(_ value: Int) -> Bool { value & control != 0 }

    /// Becomes the owner in control mode if nobody owns. Call only while holding the control lock.
    @inlinable
    func tryClaimControl() -> Bool {
        count.compareExchange(expected: 0, desired: Self.control | 1, ordering: .acquiring).exchanged
    }

    /// Announces work that was just queued, like `join()`, but if nobody owns, becomes the owner
    /// in control mode (returns true). Call only while holding the control lock (so the flag
    /// cannot be set by anyone else).
    @inlinable
    func joinControl() -> Bool {
        var current = count.load(ordering: .relaxed)
        while true {
            let desired = current == 0 ? Self.control | 1 : current + 1
            let (exchanged, original) = count.compareExchange(
                expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { return current == 0 }
            current = original
        }
    }

    /// Gives up ownership after a control step, if nothing was announced meanwhile.
    @inlinable
    func tryReleaseControl() -> Bool {
        count.compareExchange(
            expected: Self.control | 1, desired: 0, successOrdering: .releasing, failureOrdering: .acquiring
        ).exchanged
    }

    /// Leaves control mode but stays the owner (an ordinary one, which may call out). Returns
    /// the count to drain with (`leave(_:)`).
    @inlinable
    func endControlMode() -> Int {
        count.wrappingSubtract(Self.control, ordering: .acquiringAndReleasing).newValue
    }
}
