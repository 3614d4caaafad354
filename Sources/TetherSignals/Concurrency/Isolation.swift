// Public: `isCurrent` and `_currentThreadID`, inlined into Tether's model code, call into it.
public import CTetherThread
import Dispatch

/// Where a model belongs: its *owner*, one word a registrar keeps (see `ModelRegistrar`).
///
/// - A model made outside any actor belongs to the **thread** that made it: the word is that
///   thread's id (`_currentThreadID()`).
/// - A model made in code that runs on an actor (an actor's method, a `@MainActor` function or
///   task, any global actor) belongs to **that actor**, whatever thread its executor runs it on
///   across suspension points: the word is the identity of the actor's serial executor, with
///   the low bit set (executor identities point to objects aligned to 16 bytes, thread ids to
///   variables aligned to 8: their two low bits are clear).
/// - A model of a class isolated to a global actor belongs to that actor for good: its word
///   also has bit 1 set (`fixed`), and `adopt` leaves it alone.
///
/// The main thread, the main actor and the main dispatch queue are one place, as Swift treats
/// them (`MainActor.assumeIsolated` accepts each): a model made on the main thread outside any
/// task (word: the main thread's id), or in a block on the main queue that runs on another
/// thread (`DispatchQueue.main.sync` from a worker, or any main-queue block after
/// `dispatchMain()`; word: the main thread's id too), may be used in main-actor code and in
/// main-queue blocks wherever they run, and a main-actor model in main-queue blocks.
///
/// Checking the owner is one comparison when the caller's thread owns the model; otherwise
/// (`isCurrentElsewhere`) it asks the Swift runtime which executor runs the calling code (the
/// question `Actor.assumeIsolated` asks, see `tether_executor.h`), and Dispatch whether the
/// main queue runs it.
public enum _Owner {
    /// The word for the calling code: its actor's executor if it runs on one, else its thread
    /// (the main thread's for a block on the main queue).
    public static var current: UInt {
        let executor = UInt(tether_current_executor_identity())
        if executor != 0 { return executor | 1 }
        let thread = _currentThreadID()
        return thread != mainThread && _MainQueue.isCurrent ? mainThread : thread
    }

    /// The main thread's word.
    public static let mainThread = UInt(tether_main_thread_id())

    /// The bit of an owner word that says the owner never changes (a global actor's model).
    public static let fixed: UInt = 2

    /// Whether the calling code runs where `owner` says the model belongs: one inline compare
    /// when the calling thread owns the model, a call otherwise. Callers pass the word, loaded
    /// beforehand, rather than the registrar that holds it: the call is opaque, and a registrar
    /// passed across it is retained and released around it.
    @inlinable @inline(__always)
    public static func isCurrent(_ owner: UInt) -> Bool {
        owner == _currentThreadID() || isCurrentElsewhere(owner)
    }

    /// `isCurrent` for a calling thread that is not `owner`: the actor `owner` names runs the
    /// calling code, or `owner` is the main thread or the main actor and the calling code runs
    /// on the main actor or the main queue.
    @usableFromInline
    static func isCurrentElsewhere(_ owner: UInt) -> Bool {
        if owner & 1 != 0 {
            if tether_owner_is_current_actor(owner) { return true }
            return owner & ~fixed == mainActor && _MainQueue.isCurrent
        }
        return owner == mainThread && (tether_main_executor_is_current() || _MainQueue.isCurrent)
    }

    /// The owner word of `actor`: its executor's identity (for the main actor, `mainActor`).
    public static func of(_ actor: any Actor) -> UInt {
        let executor = unsafeBitCast(actor.unownedExecutor, to: (identity: UInt, implementation: UInt).self)
        return executor.identity | 1
    }

    /// The owner word of the main actor.
    public static let mainActor = UInt(tether_main_executor_identity()) | 1

    /// `owner` in words, for messages.
    public static func describe(_ owner: UInt) -> String {
        let owner = owner & ~fixed
        if owner & 1 == 0 { return "the thread that made it (no actor)" }
        return owner == mainActor ? "the main actor" : "the actor it was made on"
    }
}

/// The calling thread's id (see `tether_thread_id`). Inlinable: an opaque call here would make
/// callers keep what they are checking retained across it.
@inlinable @inline(__always)
public func _currentThreadID() -> UInt {
    UInt(tether_thread_id())
}

/// Whether a block of the main dispatch queue runs the calling code, on whichever thread:
/// Dispatch answers for a key set on the main queue (and on no other queue).
enum _MainQueue {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}
