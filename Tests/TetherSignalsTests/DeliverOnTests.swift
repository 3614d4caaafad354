import Dispatch
import Testing
import TetherSignals
import TetherTestSupport

@Suite("deliver(on:)")
struct DeliverOnTests {
    @Test func eventsAreDeliveredOnTheSchedulerInOrder() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, TestError>()
        let (recorder, _) = subject.signal.deliver(on: scheduler).recordTimed(on: scheduler)
        subject.sendNext(1)
        subject.sendNext(2)
        #expect(recorder.history.isEmpty, "nothing is delivered until the scheduler runs")
        scheduler.advance()
        scheduler.advance(by: .seconds(1))
        subject.sendNext(3)
        subject.sendError(.boom)
        scheduler.advance(by: .seconds(1))
        #expect(recorder.history == [
            .at(.zero, .next(1)), .at(.zero, .next(2)), .at(.seconds(1), .next(3)), .at(.seconds(1), .error(.boom)),
        ])
        #expect(subject.subscriberCount == 0)
    }

    @Test func completionEndsTheSubscription() {
        let scheduler = TestScheduler()
        let cleaned = Flag()
        let subject = Subject<Int, Never>()
        let signal = Signal<Int, Never> { observer in
            subject.signal.subscribe(observer)
            return ActionDisposable { cleaned.set() }
        }
        let (recorder, disposable) = signal.deliver(on: scheduler).recordTimed(on: scheduler)
        subject.sendNext(1)
        subject.sendCompleted()
        #expect(!cleaned.isSet, "the terminal event has not been delivered yet")
        scheduler.advance(by: .seconds(2))
        #expect(recorder.history == [.at(.zero, .next(1)), .at(.zero, .completed)])
        #expect(cleaned.isSet)
        #expect(disposable.isDisposed)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func disposalDropsPendingEventsAndFreesTheSubscriber() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, Never>()
        let freed = Flag()
        let received = Recorder<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let disposable = subject.signal.deliver(on: scheduler).subscribe(next: { [tracked] value in
            _ = tracked
            received.append(.next(value))
        })
        tracked = nil
        subject.sendNext(1)
        subject.sendNext(2)
        disposable.dispose()
        #expect(freed.isSet, "the pending delivery does not keep the subscriber alive")
        #expect(subject.subscriberCount == 0)
        scheduler.advance(by: .seconds(1))
        #expect(received.events == [])
    }

    @Test func eventsSentDuringADeliveryJoinIt() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, Never>()
        let (recorder, _) = subject.signal.deliver(on: scheduler).recordTimed(on: scheduler)
        let (echo, _) = subject.signal.deliver(on: scheduler).record()
        _ = subject.signal.deliver(on: scheduler).subscribe(next: { value in
            if value < 3 { subject.sendNext(value + 1) }
        })
        subject.sendNext(1)
        scheduler.advance()
        #expect(recorder.history == [.at(.zero, .next(1)), .at(.zero, .next(2)), .at(.zero, .next(3))])
        #expect(echo.values == [1, 2, 3])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func deliversOnARealQueueInOrder() {
        let queue = DispatchQueue(label: "test.deliver")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let done = DispatchSemaphore(value: 0)
        let offQueue = Counter()
        let recorder = Recorder<Int, Never>()
        Signal(sequence: 0..<1000)
            .deliver(on: QueueScheduler(queue: queue))
            .subscribe(
                next: { value in
                    if DispatchQueue.getSpecific(key: key) != true { offQueue.increment() }
                    recorder.append(.next(value))
                },
                completed: { done.signal() }
            )
        #expect(done.wait(timeout: .now() + .seconds(5)) == .success)
        #expect(recorder.values == Array(0..<1000))
        #expect(offQueue.count == 0)
    }
}
