import Foundation
import Synchronization
import TetherSignals
import TetherTestSupport
import Testing

/// Collects what a `sink` delivers, on the actor it runs on; `waitFor` suspends until a count of
/// events arrived (a continuation, not a sleep).
actor Collector {
    let executor = AlternatingExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    var seen: [String] = []
    private var waiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?

    /// Subscribes with `sink` from this actor; every closure checks it runs here.
    func collect(_ signal: Signal<Int, TestError>) -> any Disposable {
        signal.sink(
            next: { value in
                self.preconditionIsolated()
                self.record("\(value)")
            },
            error: { _ in self.record("error") },
            completed: { self.record("completed") }
        )
    }

    private func record(_ event: String) {
        seen.append(event)
        if let waiter, seen.count >= waiter.count {
            self.waiter = nil
            waiter.continuation.resume()
        }
    }

    func waitFor(_ count: Int) async {
        if seen.count >= count { return }
        await withCheckedContinuation { waiter = (count, $0) }
    }

    /// Sends 1 on another thread (it waits for this actor), then 2 and 3 here: they must wait
    /// behind it.
    func sendAcrossThenHere(_ subject: Subject<Int, TestError>) {
        let sent = DispatchSemaphore(value: 0)
        Thread {
            subject.sendNext(1)
            sent.signal()
        }.start()
        sent.wait()
        subject.sendNext(2)
        subject.sendNext(3)
    }

    func sendHere(_ subject: Subject<Int, TestError>, _ value: Int) { subject.sendNext(value) }
}

@Suite("sink: closures that run in the caller's isolation")
struct SinkTests {
    /// The first thing a Swift 6 user writes: collect values into a local variable.
    @Test func collectsIntoALocalVariable() {
        var seen: [Int] = []
        var ended = false
        let subject = Subject<Int, Never>()
        let subscription = subject.signal.map { $0 * 2 }.sink(next: { seen.append($0) }, completed: { ended = true })
        subject.sendNext(1)
        subject.sendNext(2)
        subject.sendCompleted()
        #expect(seen == [2, 4])
        #expect(ended)
        subscription.dispose()
    }

    @Test func deliversFailures() {
        var events: [String] = []
        Signal<Int, TestError>(error: .boom).sink(next: { events.append("\($0)") }, error: { events.append("\($0)") })
        #expect(events == ["boom"])
    }

    /// From an actor, events sent on other threads are delivered on the actor, in order, and the
    /// actor's own sends wait behind the ones already waiting.
    @Test func anActorReceivesEventsFromOtherThreadsInOrder() async {
        let collector = Collector()
        let subject = Subject<Int, TestError>()
        let subscription = await collector.collect(subject.signal)
        await collector.sendAcrossThenHere(subject)
        await collector.sendHere(subject, 4)
        let senders = (5...8).map { value in
            Thread { subject.sendNext(value) }
        }
        for sender in senders {   // one after another, so their order is known
            sender.start()
            while !sender.isFinished { usleep(100) }
        }
        subject.sendCompleted()
        await collector.waitFor(9)
        #expect(await collector.seen == ["1", "2", "3", "4", "5", "6", "7", "8", "completed"])
        subscription.dispose()
    }

    /// Disposed while events wait for the actor: none of them is delivered.
    @Test func disposingDropsWaitingEvents() async {
        let collector = Collector()
        let subject = Subject<Int, TestError>()
        let subscription = await collector.collect(subject.signal)
        await collector.sendHere(subject, 1)
        // Send while the actor is busy (it waits for this task), so the event waits.
        let busy = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blocker = Task { await collector.block(busy, release) }
        busy.wait()
        subject.sendNext(2)
        subscription.dispose()
        release.signal()
        await blocker.value
        await collector.sendHere(subject, 3)
        #expect(await collector.seen == ["1"])
    }

    /// From code on no actor, an event from another thread has nowhere safe to go: the
    /// process stops with a message that says what to do.
    @Test func anEventFromAnotherThreadStopsANonisolatedSink() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subject = Subject<Int, Never>()
            var seen: [Int] = []
            let subscription = subject.signal.sink { seen.append($0) }
            let thread = Thread { subject.sendNext(1) }
            thread.start()
            while !thread.isFinished { usleep(1_000) }
            subscription.dispose()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("sink(next:) was called from code on no actor"))
    }
}

extension Collector {
    /// Keeps the actor busy until `release` is signalled.
    func block(_ busy: DispatchSemaphore, _ release: DispatchSemaphore) {
        busy.signal()
        release.wait()
    }
}
