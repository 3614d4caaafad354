import Foundation
import Synchronization
import Testing
import TetherSignals
import TetherTestSupport

/// Several threads sending into subjects at once. A sender that finds another thread delivering
/// waits for it, a little, and then delivers its own event, as with a lock; a sender that is
/// itself delivering, or that holds something the delivering subscriber needs, must not
/// deadlock. The random scripts mix sends, sends from inside callbacks into other subjects,
/// a lock shared by senders and subscribers, and subscriptions coming and going; after every
/// script, each subscriber got every event exactly once, one at a time, in each sender's order.
/// A failing seed replays: `TETHER_SEEDS=9 swift test --filter replaySubjectContentionSeeds`.
@Suite("Subject contention")
struct SubjectContentionTests {
    /// Two threads send 50,000 events each into one subject: nearly every event is delivered by
    /// the thread that sent it (it waited for the other delivery to end) rather than queued for
    /// the other thread.
    @Test func aSenderThatIsNotDeliveringDeliversItsOwnEvent() {
        let subject = Subject<Int, Never>()
        let senders = Mutex<[pthread_t]>([0, 0])
        let byItsSender = Atomic<Int>(0)
        let byTheOther = Atomic<Int>(0)
        let work = Mutex<Int>(0)
        let subscription = subject.signal.subscribe(next: { value in
            // A little work, so that the two threads' deliveries overlap often.
            for step in 0..<20 { work.withLock { $0 &+= step } }
            if senders.withLock({ $0[value & 1] }) == pthread_self() {
                byItsSender.add(1, ordering: .relaxed)
            } else {
                byTheOther.add(1, ordering: .relaxed)
            }
        })
        let perThread = 50_000
        let ready = Mutex<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            senders.withLock { $0[thread] = pthread_self() }
            // Start together.
            ready.withLock { $0 += 1 }
            while ready.withLock({ $0 }) < 2 {}
            for seq in 0..<perThread { subject.sendNext(seq * 2 + thread) }
        }
        let own = byItsSender.load(ordering: .acquiring)
        let other = byTheOther.load(ordering: .acquiring)
        #expect(own + other == 2 * perThread)
        #expect(other * 20 <= own + other, "\(other) of \(own + other) events were delivered by the other thread")
        subscription.dispose()
    }

    /// A sender holds a lock that the delivering subscriber then needs. Waiting for that
    /// delivery would deadlock (as it does around a lock held while callbacks run): the sender
    /// gives up waiting, queues its event and returns; the delivering thread delivers it.
    @Test func aSenderHoldingALockTheSubscriberNeedsDoesNotDeadlock() {
        let subject = Subject<Int, Never>()
        let shared = NSLock()
        let inDelivery = DispatchSemaphore(value: 0)
        let lockTaken = DispatchSemaphore(value: 0)
        let received = Mutex<[Int]>([])
        let subscription = subject.signal.subscribe(next: { value in
            if value == 1 {
                inDelivery.signal()
                lockTaken.wait()
                shared.lock()
                shared.unlock()
            }
            received.withLock { $0.append(value) }
        })
        let finished = DispatchSemaphore(value: 0)
        Thread {
            subject.sendNext(1)
            finished.signal()
        }.start()
        Thread {
            inDelivery.wait()
            shared.lock()
            lockTaken.signal()
            subject.sendNext(2)
            shared.unlock()
            finished.signal()
        }.start()
        #expect(finished.wait(timeout: .now() + 20) == .success, "a sender returned")
        #expect(finished.wait(timeout: .now() + 20) == .success, "both senders returned: no deadlock")
        #expect(received.withLock { $0 } == [1, 2])
        subscription.dispose()
    }

    /// Two subjects whose subscribers send into each other, each fed by its own thread: each
    /// thread, delivering one subject, may find the other delivering the other subject. Neither
    /// waits for long: they give up and queue, so the two cannot wait for each other forever.
    @Test func twoSubjectsFeedingEachOtherFromTwoThreads() {
        let subjects = [Subject<Int, Never>(), Subject<Int, Never>()]
        let counts = Mutex<[Int]>([0, 0])
        let subscriptions = (0..<2).map { index in
            subjects[index].signal.subscribe(next: { value in
                counts.withLock { $0[index] += 1 }
                if value >= 0 { subjects[1 - index].sendNext(-1) }   // a reply, not replied to
            })
        }
        let perThread = 20_000
        let finished = DispatchSemaphore(value: 0)
        for index in 0..<2 {
            Thread {
                for value in 0..<perThread { subjects[index].sendNext(value) }
                finished.signal()
            }.start()
        }
        #expect(finished.wait(timeout: .now() + 60) == .success)
        #expect(finished.wait(timeout: .now() + 60) == .success, "both senders returned: no deadlock")
        for index in 0..<2 {
            #expect(counts.withLock { $0[index] } == 2 * perThread, "its own events and the other's replies")
        }
        subscriptions.forEach { $0.dispose() }
    }

    @Test(arguments: 1...8)
    func seed(_ seed: Int) {
        Self.run(seed: UInt64(seed), steps: 1_500)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["TETHER_SEEDS"] != nil))
    func replaySubjectContentionSeeds() throws {
        let parts = (ProcessInfo.processInfo.environment["TETHER_SEEDS"] ?? "").split(separator: "-").compactMap { UInt64($0) }
        let first = try #require(parts.first, "TETHER_SEEDS: a seed or a range such as 9-200")
        for seed in first...(parts.last ?? first) { Self.run(seed: seed, steps: 10_000) }
    }

    // MARK: Random scripts

    /// An event: who sent it first, its place in that thread's sends, and what its subscribers
    /// must do with it.
    struct Message: Sendable, Hashable {
        var thread: Int
        var seq: Int
        /// 0 when sent by a script; 1 when a subscriber passed it on to the next subject.
        var hop: Int
        /// The forwarding subscriber passes it on to the next subject (from inside its callback).
        var forward: Bool
        /// The locking subscriber takes the shared lock while it handles it.
        var locks: Bool
    }

    enum Step {
        case send(subject: Int, Message)
        /// Sends while holding the lock that locking subscribers take.
        case sendHoldingTheLock(subject: Int, Message)
        case subscribe(subject: Int)
        case disposeOldest
        case yield
    }

    static let subjectCount = 3
    static let threadCount = 3

    /// The steps of each thread, from the seed alone.
    static func scripts(seed: UInt64, steps: Int) -> [[Step]] {
        var random = SeededRandom(seed: seed)
        return (0..<threadCount).map { thread in
            var seq = 0
            return (0..<steps).map { _ in
                let subject = random.below(subjectCount)
                func message() -> Message {
                    defer { seq += 1 }
                    return Message(thread: thread, seq: seq, hop: 0, forward: random.chance(20), locks: random.chance(10))
                }
                switch random.below(100) {
                case 0..<60: return .send(subject: subject, message())
                case 60..<75: return .sendHoldingTheLock(subject: subject, message())
                case 75..<85: return .subscribe(subject: subject)
                case 85..<95: return .disposeOldest
                default: return .yield
                }
            }
        }
    }

    static func run(seed: UInt64, steps: Int) {
        let scripts = scripts(seed: seed, steps: steps)
        let subjects = (0..<subjectCount).map { _ in Subject<Message, Never>() }
        // Recursive: a thread that holds it while it sends may deliver, and so run the locking
        // subscriber, itself.
        let shared = NSRecursiveLock()
        // Each subject: a recorder that keeps everything, a forwarder and a locking subscriber
        // (permanent), and subscribers that come and go.
        let recorders = (0..<subjectCount).map { _ in Recorder() }
        var permanent: [any Disposable] = []
        for index in 0..<subjectCount {
            let next = subjects[(index + 1) % subjectCount]
            permanent.append(subjects[index].signal.subscribe(next: recorders[index].receive))
            permanent.append(subjects[index].signal.subscribe(next: { message in
                guard message.forward, message.hop == 0 else { return }
                var passed = message
                passed.hop = 1
                next.sendNext(passed)
            }))
            permanent.append(subjects[index].signal.subscribe(next: { message in
                guard message.locks else { return }
                shared.lock()
                shared.unlock()
            }))
        }
        let transients = Mutex<[Recorder]>([])
        let finished = DispatchGroup()
        for script in scripts {
            finished.enter()
            Thread {
                var mine: [any Disposable] = []
                var recorders: [Recorder] = []
                for step in script {
                    switch step {
                    case .send(let subject, let message):
                        subjects[subject].sendNext(message)
                    case .sendHoldingTheLock(let subject, let message):
                        shared.lock()
                        subjects[subject].sendNext(message)
                        shared.unlock()
                    case .subscribe(let subject):
                        let recorder = Recorder()
                        recorders.append(recorder)
                        mine.append(subjects[subject].signal.subscribe(next: recorder.receive))
                    case .disposeOldest:
                        if !mine.isEmpty { mine.removeFirst().dispose() }
                    case .yield:
                        Thread.sleep(forTimeInterval: 0.000_05)
                    }
                }
                mine.forEach { $0.dispose() }
                transients.withLock { $0.append(contentsOf: recorders) }
                finished.leave()
            }.start()
        }
        let done = finished.wait(timeout: .now() + 120) == .success
        #expect(done, "seed \(seed): every thread finished its script (no deadlock)")
        guard done else { return }

        // What each subject must have delivered: the scripts' sends into it, and what the
        // forwarder of the subject before it passed on.
        var expected = Array(repeating: [Message](), count: subjectCount)
        for script in scripts {
            for step in script {
                switch step {
                case .send(let subject, let message), .sendHoldingTheLock(let subject, let message):
                    expected[subject].append(message)
                    if message.forward {
                        var passed = message
                        passed.hop = 1
                        expected[(subject + 1) % subjectCount].append(passed)
                    }
                case .subscribe, .disposeOldest, .yield:
                    break
                }
            }
        }
        for index in 0..<subjectCount {
            let got = recorders[index].messages
            #expect(got.count == expected[index].count, "seed \(seed): subject \(index) delivered every event once")
            #expect(Set(got) == Set(expected[index]), "seed \(seed): subject \(index) delivered what was sent into it")
            #expect(recorders[index].overlaps == 0, "seed \(seed): one event at a time")
            #expect(Self.inEachSendersOrder(got), "seed \(seed): subject \(index) kept each sender's order")
            #expect(subjects[index].subscriberCount == 3, "seed \(seed): every transient subscription was removed")
        }
        for recorder in transients.withLock({ $0 }) {
            #expect(recorder.overlaps == 0, "seed \(seed): a transient subscriber got one event at a time")
        }
        permanent.forEach { $0.dispose() }
    }

    /// Whether the messages of each first sender, and of each hop, arrived in the order sent.
    static func inEachSendersOrder(_ messages: [Message]) -> Bool {
        var last: [Int: Int] = [:]
        for message in messages {
            let key = message.thread * 2 + message.hop
            if let previous = last[key], previous >= message.seq { return false }
            last[key] = message.seq
        }
        return true
    }

    /// Keeps what a subscriber got and notices two callbacks at once.
    final class Recorder: Sendable {
        private let state = Mutex<[Message]>([])
        private let inCallback = Atomic<Bool>(false)
        private let overlapCount = Atomic<Int>(0)

        var messages: [Message] { state.withLock { $0 } }
        var overlaps: Int { overlapCount.load(ordering: .acquiring) }

        @Sendable func receive(_ message: Message) {
            if inCallback.exchange(true, ordering: .acquiringAndReleasing) {
                overlapCount.add(1, ordering: .relaxed)
            }
            state.withLock { $0.append(message) }
            inCallback.store(false, ordering: .releasing)
        }
    }
}
