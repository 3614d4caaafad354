import Testing
import TetherSignals
import TetherTestSupport

@Suite("delay")
struct DelayTests {
    @Test func valuesAndCompletionAreDelayed() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, Never>()
        let (recorder, _) = subject.signal.delay(.seconds(2), on: scheduler).recordTimed(on: scheduler)
        subject.sendNext(1)
        scheduler.advance(by: .milliseconds(500))
        subject.sendNext(2)
        subject.sendNext(3)
        scheduler.advance(by: .milliseconds(500))
        subject.sendCompleted()
        #expect(recorder.history == [])
        scheduler.advance(by: .seconds(5))
        #expect(recorder.history == [
            .at(.seconds(2), .next(1)),
            .at(.milliseconds(2500), .next(2)),
            .at(.milliseconds(2500), .next(3)),
            .at(.seconds(3), .completed),
        ])
        #expect(subject.subscriberCount == 0)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func anErrorIsNotDelayedAndDropsWaitingValues() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, TestError>()
        let (recorder, _) = subject.signal.delay(.seconds(2), on: scheduler).recordTimed(on: scheduler)
        subject.sendNext(1)
        scheduler.advance(by: .seconds(1))
        subject.sendNext(2)
        subject.sendError(.boom)
        #expect(recorder.history == [], "the error is delivered on the scheduler")
        scheduler.advance()
        #expect(recorder.history == [.at(.seconds(1), .error(.boom))])
        scheduler.advance(by: .seconds(5))
        #expect(recorder.history == [.at(.seconds(1), .error(.boom))])
        #expect(subject.subscriberCount == 0)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func zeroDelayStillDeliversOnTheScheduler() {
        let scheduler = TestScheduler()
        let (recorder, _) = Signal(sequence: [1, 2]).delay(.zero, on: scheduler).recordTimed(on: scheduler)
        #expect(recorder.history == [])
        scheduler.advance()
        #expect(recorder.history == [.at(.zero, .next(1)), .at(.zero, .next(2)), .at(.zero, .completed)])
    }

    @Test func manyValuesKeepTheirOrderAndSpacing() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, Never>()
        let (recorder, _) = subject.signal.delay(.milliseconds(250), on: scheduler).recordTimed(on: scheduler)
        for n in 0..<200 {
            subject.sendNext(n)
            if n.isMultiple(of: 2) { scheduler.advance(by: .milliseconds(100)) }
        }
        scheduler.run()
        let expected: [Timed<Int, Never>] = (0..<200).map { n in
            .at(.milliseconds(100 * ((n + 1) / 2) + 250), .next(n))   // n is sent at 100 ms * ((n + 1) / 2)
        }
        #expect(recorder.history == expected)
    }

    @Test func disposalDropsWaitingEventsAndFreesTheSubscriber() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, Never>()
        let freed = Flag()
        let received = Recorder<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let disposable = subject.signal.delay(.seconds(1), on: scheduler).subscribe(next: { [tracked] value in
            _ = tracked
            received.append(.next(value))
        })
        tracked = nil
        subject.sendNext(1)
        disposable.dispose()
        #expect(freed.isSet)
        #expect(subject.subscriberCount == 0)
        #expect(scheduler.pendingCount == 0, "the timer was cancelled")
        scheduler.advance(by: .seconds(2))
        #expect(received.events == [])
    }
}
