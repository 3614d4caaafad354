import CTetherThread

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a model belongs: its *owner*, one word a registrar keeps (see `ModelRegistrar`).
///
/// - A model made outside any actor belongs to the **thread** that made it: the word is that
///   thread's `pthread_self()`.
/// - A model made in code that runs on an actor (an actor's method, a `@MainActor` function or
///   task, any global actor) belongs to **that actor**, whatever thread its executor runs it on
///   across suspension points: the word is the identity of the actor's serial executor, with
///   the low bit set (executor identities and `pthread_t` values both point to memory aligned
///   to 16 bytes, so their low bits are clear).
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

    /// Whether the calling code runs where `owner` says the model belongs.
    @inlinable @inline(__always)
    public static func isCurrent(_ owner: UInt) -> Bool {
        owner == _currentThreadID() || (owner & 1 != 0 && _isCurrentActor(owner))
    }

    /// The slow half of `isCurrent`, for a model that an actor owns.
    @usableFromInline @inline(never)
    static func _isCurrentActor(_ owner: UInt) -> Bool {
        let owner = owner & ~fixed
        if UInt(tether_current_executor_identity()) | 1 == owner { return true }
        // The main actor also runs code outside any task: the main queue's and the run loop's
        // callbacks on the main thread. The runtime's own rule decides.
        return owner == mainActor && tether_main_executor_is_current()
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

/// The calling thread's id. Inlinable: an opaque call here would make callers keep what they
/// are checking retained across it.
@inlinable
public func _currentThreadID() -> UInt {
    #if canImport(Glibc)
    return UInt(pthread_self())
    #else
    return UInt(bitPattern: pthread_self())
    #endif
}
