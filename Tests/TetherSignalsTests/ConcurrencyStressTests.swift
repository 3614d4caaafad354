import Dispatch
import Synchronization
import Testing
import TetherSignals

/// Thread-safety under load: many threads send at once, subscribers re-enter and dispose
/// themselves, subscriptions churn. Each test finishes in well under a second in debug builds.
@Suite("Concurrency stress")
struct ConcurrencyStressTests {
    static let threads = 8
    static let perThread = 10_000
    static var total: Int { threads * perThread }

    /// A value that says which thread sent it and its sequence number on that thread.
    static func value(thread: Int, seq: Int) -> Int { thread * 1_000_000 + seq }

    /// Sends `perThread` values from each of `threads` threads at once.
    static func sendFromManyThreads(_ send: @Sendable (Int) -> Void) {
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for seq in 0..<perThread { send(value(thread: thread, seq: seq)) }
        }
    }

    @Test func manyThreadsSendingIntoOneSubject() {
        let subject = Subject<Int, Never>()
        let checkers = (0..<3).map { _ in SerialChecker() }
        let subscriptions = checkers.map { checker in subject.signal.subscribe(next: { checker.receive($0) }) }
        Self.sendFromManyThreads { subject.sendNext($0) }
        for checker in checkers {
            #expect(checker.count == Self.total)
            #expect(checker.overlaps == 0, "callbacks of one subscriber never overlap")
            #expect(checker.orderViolations == 0, "each thread's values arrive in the order sent")
        }
        subscriptions.forEach { $0.dispose() }
        #expect(subject.subscriberCount == 0)
    }

    @Test func manyThreadsSendingIntoOneObserver() {
        let box = ObserverBox()
        let cleaned = Flag()
        let signal = Signal<Int, Never> { observer in
            box.set(observer)
            return ActionDisposable { cleaned.set() }
        }
        let checker = SerialChecker()
        let mapped = SerialChecker()
        let subscription = signal.subscribe(next: { checker.receive($0) })
        let observer = box.observer!
        let second = Signal<Int, Never> { observer in
            box.set(observer)
            return nil
        }.map { $0 }.filter { _ in true }.subscribe(next: { mapped.receive($0) })
        let secondObserver = box.observer!
        Self.sendFromManyThreads { value in
            observer.sendNext(value)
            secondObserver.sendNext(value)
        }
        for checker in [checker, mapped] {
            #expect(checker.count == Self.total)
            #expect(checker.overlaps == 0)
            #expect(checker.orderViolations == 0)
        }
        subscription.dispose()
        second.dispose()
        #expect(cleaned.isSet)
        observer.sendNext(-1)
        #expect(checker.count == Self.total, "nothing is delivered after disposal")
    }

    @Test func subscriberSendingIntoItsOwnSubjectWhileOthersSend() {
        let subject = Subject<Int, Never>()
        let markers = Self.total / 100
        let echoing = SerialChecker()
        let watching = SerialChecker()
        let d1 = subject.signal.subscribe(next: { value in
            echoing.receive(value)
            if value >= 0, value % 100 == 0 { subject.sendNext(-value - 1) }   // re-entrant send
        })
        let d2 = subject.signal.subscribe(next: { watching.receive($0) })
        Self.sendFromManyThreads { subject.sendNext($0) }
        for checker in [echoing, watching] {
            #expect(checker.count == Self.total + markers, "every value and every marker arrived: no deadlock, no loss")
            #expect(checker.markers == markers)
            #expect(checker.overlaps == 0)
            #expect(checker.orderViolations == 0)
        }
        d1.dispose()
        d2.dispose()
        #expect(subject.subscriberCount == 0)
    }

    @Test func subscribersDisposingThemselvesWhileOthersSend() {
        let subject = Subject<Int, Never>()
        let quitters = 16
        let counters = (0..<quitters).map { _ in Counter() }
        let holders = (0..<quitters).map { _ in DisposableBox() }
        for i in 0..<quitters {
            let limit = (i + 1) * 100
            let counter = counters[i]
            let holder = holders[i]
            holder.set(subject.signal.subscribe(next: { _ in
                if counter.increment() == limit { holder.disposable?.dispose() }
            }))
        }
        let stayer = SerialChecker()
        let stay = subject.signal.subscribe(next: { stayer.receive($0) })
        Self.sendFromManyThreads { subject.sendNext($0) }
        for i in 0..<quitters {
            #expect(counters[i].count == (i + 1) * 100, "nothing arrives after a subscriber disposed itself")
        }
        #expect(stayer.count == Self.total)
        #expect(stayer.overlaps == 0)
        #expect(subject.subscriberCount == 1)
        stay.dispose()
        #expect(subject.subscriberCount == 0)
    }

    @Test func subscribeAndDisposeChurnWhileSending() {
        let subject = Subject<Int, Never>()
        let steady = SerialChecker()
        let steadySubscription = subject.signal.subscribe(next: { steady.receive($0) })
        let sent = Counter()
        let received = Counter()
        DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { worker in
            if worker == Self.threads {
                // The sender. (It sends a fixed number of values rather than waiting for the
                // churn to end: an iteration of concurrentPerform must never wait for another.)
                for seq in 0..<20_000 {
                    subject.sendNext(Self.value(thread: 0, seq: seq))
                    sent.increment()
                }
                return
            }
            for round in 0..<2_000 {
                let d = subject.signal.map { $0 + 1 }.subscribe(next: { _ in received.increment() })
                if round % 3 == 0 {
                    subject.sendNext(Self.value(thread: 1 + worker, seq: round / 3))
                    sent.increment()
                }
                d.dispose()
            }
        }
        #expect(subject.subscriberCount == 1, "every churned subscription was removed")
        #expect(steady.count == sent.count)
        #expect(steady.overlaps == 0)
        #expect(steady.orderViolations == 0)
        #expect(received.count > 0)
        steadySubscription.dispose()
        #expect(subject.subscriberCount == 0)
    }

    @Test func everythingCapturedBySubscribersIsFreedAfterDisposal() {
        let subject = Subject<Int, Never>()
        let subscribers = 200
        let freed = Counter()
        let subscriptions = DisposableList()
        DispatchQueue.concurrentPerform(iterations: Self.threads) { worker in
            for _ in 0..<(subscribers / Self.threads) {
                let tracked = Tracked { freed.increment() }
                subscriptions.append(subject.signal
                    .map { $0 * 2 }
                    .filter { [tracked] _ in withExtendedLifetime(tracked) { true } }
                    .subscribe(next: { [tracked] _ in _ = tracked }))
            }
        }
        #expect(subject.subscriberCount == subscribers)
        #expect(freed.count == 0)
        let all = subscriptions.all
        DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { worker in
            if worker == Self.threads {
                for seq in 0..<2_000 { subject.sendNext(seq) }
                return
            }
            for index in stride(from: worker, to: all.count, by: Self.threads) {
                all[index].dispose()
            }
        }
        subscriptions.removeAll()
        #expect(subject.subscriberCount == 0)
        #expect(freed.count == subscribers, "every Tracked captured by a subscription was freed")
    }

    @Test func deliverOnKeepsEachThreadsOrder() {
        let subject = Subject<Int, Never>()
        let checker = SerialChecker()
        let completed = Flag()
        let done = DispatchSemaphore(value: 0)
        let subscription = subject.signal
            .deliver(on: QueueScheduler(label: "stress.deliver"))
            .subscribe(next: { checker.receive($0) }, completed: { completed.set() })
        // Wait for the disposal, which follows the `completed` callback on the delivering
        // thread (waiting for the callback itself raced with that disposal).
        (subscription as? CompoundDisposable)?.add { done.signal() }
        Self.sendFromManyThreads { subject.sendNext($0) }
        subject.sendCompleted()
        #expect(done.wait(timeout: .now() + .seconds(10)) == .success)
        #expect(completed.isSet)
        #expect(checker.count == Self.total)
        #expect(checker.overlaps == 0)
        #expect(checker.orderViolations == 0)
        #expect(subscription.isDisposed)
    }
}

/// Checks a subscriber's callbacks: counts them, detects overlapping calls, and checks that
/// each sending thread's values arrive in increasing order. Negative values are markers.
private final class SerialChecker: Sendable {
    private let inCallback = Atomic<Bool>(false)
    private let overlapCount = Atomic<Int>(0)
    private let received = Atomic<Int>(0)
    private let markerCount = Atomic<Int>(0)
    private let violations = Atomic<Int>(0)
    private let lastSeq = Mutex<[Int]>(Array(repeating: -1, count: 64))

    var count: Int { received.load(ordering: .acquiring) }
    var overlaps: Int { overlapCount.load(ordering: .acquiring) }
    var orderViolations: Int { violations.load(ordering: .acquiring) }
    var markers: Int { markerCount.load(ordering: .acquiring) }

    func receive(_ value: Int) {
        if inCallback.exchange(true, ordering: .acquiringAndReleasing) {
            overlapCount.add(1, ordering: .relaxed)
        }
        received.add(1, ordering: .relaxed)
        if value < 0 {
            markerCount.add(1, ordering: .relaxed)
        } else {
            let thread = value / 1_000_000
            let seq = value % 1_000_000
            let inOrder = lastSeq.withLock { last -> Bool in
                defer { last[thread] = seq }
                return seq > last[thread]
            }
            if !inOrder { violations.add(1, ordering: .relaxed) }
        }
        inCallback.store(false, ordering: .releasing)
    }
}

private final class ObserverBox: Sendable {
    private let storage = Mutex<Observer<Int, Never>?>(nil)
    func set(_ observer: Observer<Int, Never>) { storage.withLock { $0 = observer } }
    var observer: Observer<Int, Never>? { storage.withLock { $0 } }
}

private final class DisposableBox: Sendable {
    private let storage = Mutex<(any Disposable)?>(nil)
    func set(_ disposable: any Disposable) { storage.withLock { $0 = disposable } }
    var disposable: (any Disposable)? { storage.withLock { $0 } }
}

private final class DisposableList: Sendable {
    private let storage = Mutex<[any Disposable]>([])
    func append(_ disposable: any Disposable) { storage.withLock { $0.append(disposable) } }
    var all: [any Disposable] { storage.withLock { $0 } }
    func removeAll() { storage.withLock { $0.removeAll() } }
}
