/// One event of a signal: a value, a failure, or completion.
///
/// A signal sends `next*` followed by at most one terminal event (`error` or `completed`).
/// Nothing follows a terminal event.
///
/// ```swift
/// let history: [Event<Int, Never>] = [.next(1), .next(2), .completed]
/// ```
public enum Event<Value, Failure: Error> {
    /// A value.
    case next(Value)
    /// The signal failed; no further events follow.
    case error(Failure)
    /// The signal finished successfully; no further events follow.
    case completed

    /// Whether this event ends the signal (`error` or `completed`).
    @inlinable
    public var isTerminal: Bool {
        if case .next = self { return false }
        return true
    }

    /// The value carried by a `next` event, if any.
    @inlinable
    public var value: Value? {
        if case .next(let value) = self { return value }
        return nil
    }

    /// The failure carried by an `error` event, if any.
    @inlinable
    public var error: Failure? {
        if case .error(let error) = self { return error }
        return nil
    }

    /// Transforms the value of a `next` event; terminal events pass through.
    ///
    /// ```swift
    /// Event<Int, Never>.next(2).map { $0 * 10 }   // .next(20)
    /// ```
    @inlinable
    public func map<NewValue>(_ transform: (Value) throws(Failure) -> NewValue) -> Event<NewValue, Failure> {
        switch self {
        case .next(let value):
            do { return .next(try transform(value)) } catch { return .error(error) }
        case .error(let error): return .error(error)
        case .completed: return .completed
        }
    }

    /// Transforms the failure of an `error` event; other events pass through.
    @inlinable
    public func mapError<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> Event<Value, NewFailure> {
        switch self {
        case .next(let value): return .next(value)
        case .error(let error): return .error(transform(error))
        case .completed: return .completed
        }
    }
}

extension Event: Sendable where Value: Sendable {}
extension Event: Equatable where Value: Equatable, Failure: Equatable {}
extension Event: Hashable where Value: Hashable, Failure: Hashable {}

extension Event: CustomStringConvertible {
    public var description: String {
        switch self {
        case .next(let value): return "next(\(value))"
        case .error(let error): return "error(\(error))"
        case .completed: return "completed"
        }
    }
}
