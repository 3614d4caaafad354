// Public: `isCurrent` and `_currentThreadID`, inlined into Tether's model code, call into it.
public import CTetherThread

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
/// Checking the owner is one comparison when the caller's thread owns the model; for a model
/// that an actor owns it asks the Swift runtime which executor runs the calling code (the
/// question `Actor.assumeIsolated` asks, see `tether_executor.h`).
public enum _Owner {
    /// The word for the calling code: its actor's executor if it runs on one, else its thread.
    public static var current: UInt {
        let executor = UInt(tether_current_executor_identity())
        return executor != 0 ? executor | 1 : _currentThreadID()
    }

    /// The bit of an owner word that says the owner never changes (a global actor's model).
    public static let fixed: UInt = 2

    /// Whether the calling code runs where `owner` says the model belongs: one inline compare
    /// for a thread's model; a call into C for an actor's.
    @inlinable @inline(__always)
    public static func isCurrent(_ owner: UInt) -> Bool {
        owner == _currentThreadID() || (owner & 1 != 0 && tether_owner_is_current_actor(owner))
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
