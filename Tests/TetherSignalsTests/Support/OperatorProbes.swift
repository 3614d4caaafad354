@testable import TetherSignals

/// A cold signal over a subject that counts its subscriptions and its cleanups, so a test can
/// see when an operator subscribes upstream and prove that it disposes upstream when it ends.
final class CountingSource<Value, Failure: Error>: Sendable {
    let subject = Subject<Value, Failure>()
    let subscriptions = Counter()
    let cleanups = Counter()

    var signal: Signal<Value, Failure> {
        Signal { [subject, subscriptions, cleanups] observer in
            subscriptions.increment()
            let inner = subject.signal.subscribe(observer)
            return ActionDisposable {
                cleanups.increment()
                inner.dispose()
            }
        }
    }

    /// Whether the subject still has a subscriber (the operator still listens upstream).
    var isSubscribed: Bool { subject.subscriberCount > 0 }

    func send(_ values: Value...) { for value in values { subject.sendNext(value) } }
    func fail(_ error: Failure) { subject.sendError(error) }
    func complete() { subject.sendCompleted() }
}

/// 1, 2, 3, ... without end, counting how many numbers were produced: proves that an
/// operator stops an infinite synchronous producer.
struct CountingNaturals: Sequence, Sendable {
    let produced: Counter

    struct Iterator: IteratorProtocol {
        let produced: Counter
        mutating func next() -> Int? { produced.increment() }
    }

    func makeIterator() -> Iterator { Iterator(produced: produced) }
}

/// A class that is not `Sendable`, to prove that an operator does not require `Sendable` values.
final class NotSendable: Equatable {
    let id: Int
    init(_ id: Int) { self.id = id }
    static func == (lhs: NotSendable, rhs: NotSendable) -> Bool { lhs.id == rhs.id }
}

extension Signal {
    /// Runs this signal's stages with `sink` as the last stage, without the terminal subscriber
    /// (which drops events after a terminal one): shows exactly what an operator sends.
    /// Returns the subscription's lifetime.
    @discardableResult
    func runRaw(_ sink: @escaping @Sendable (Event<Value, Failure>) -> Void) -> CompoundDisposable {
        let lifetime = CompoundDisposable()
        _run(sink, lifetime)
        return lifetime
    }
}

/// The number of children a compound disposable holds (to prove that a long-lived
/// subscription does not grow).
func childCount(of disposable: any Disposable) -> Int {
    guard let compound = disposable as? CompoundDisposable else { return -1 }
    return compound.storage.withLock { $0.count }
}
