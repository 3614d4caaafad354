import Testing
import TetherSignals
import TetherTestSupport

@Suite("throttle")
struct ThrottleTests {
    /// Sends each value of `script` at its time (in milliseconds), then `end` at its time.
    private func play<F: Error>(
        _ script: [(Int, Int)], end: (Int, Event<Int, F>)? = nil,
        into subject: Subject<Int, F>, on scheduler: TestScheduler
    ) {
        for (ms, value) in script {
            scheduler.advance(to: .milliseconds(ms))
            subject.sendNext(value)
        }
        if let (ms, event) = end {
            scheduler.advance(to: .milliseconds(ms))
            subject.send(event)
        }
        scheduler.advance(by: .seconds(10))
    }

    @Test func firstValuePassesThenTheLatestOncePerInterval() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, Never>()
        let (recorder, _) = subject.signal.throttle(.seconds(1), on: scheduler).recordTimed(on: scheduler)
        play([(0, 1), (300, 2), (600, 3), (2500, 4), (2700, 5), (2750, 6)], end: (2800, .completed), into: subject, on: scheduler)
        #expect(recorder.history == [
            .at(.zero, .next(1)),
            .at(.seconds(1), .next(3)),            // 2 was replaced by 3 within the interval
            .at(.milliseconds(2500), .next(4)),    // the interval had passed: at once
            .at(.milliseconds(3500), .next(6)),    // the latest of 5 and 6, one interval after 4
            .at(.milliseconds(3500), .completed),  // completion waited for the held value
        ])
        #expect(subject.subscriberCount == 0)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func withoutLatestValuesWithinTheIntervalAreDropped() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, Never>()
        let (recorder, _) = subject.signal.throttle(.seconds(1), on: scheduler, latest: false).recordTimed(on: scheduler)
        play([(0, 1), (0, 2), (300, 3), (999, 4), (1000, 5), (1500, 6), (2200, 7)], end: (2300, .completed), into: subject, on: scheduler)
        #expect(recorder.history == [
            .at(.zero, .next(1)),
            .at(.seconds(1), .next(5)),
            .at(.milliseconds(2200), .next(7)),
            .at(.milliseconds(2300), .completed),
        ])
    }

    @Test func completionWithNothingHeldIsDeliveredAtOnceOnTheScheduler() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, Never>()
        let (recorder, _) = subject.signal.throttle(.seconds(1), on: scheduler).recordTimed(on: scheduler)
        play([(0, 1)], end: (200, .completed), into: subject, on: scheduler)
        #expect(recorder.history == [.at(.zero, .next(1)), .at(.milliseconds(200), .completed)])
    }

    @Test func anErrorDropsTheHeldValue() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, TestError>()
        let (recorder, _) = subject.signal.throttle(.seconds(1), on: scheduler).recordTimed(on: scheduler)
        play([(0, 1), (500, 2)], end: (700, .error(.boom)), into: subject, on: scheduler)
        #expect(recorder.history == [.at(.zero, .next(1)), .at(.milliseconds(700), .error(.boom))])
        #expect(subject.subscriberCount == 0)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func disposalDropsTheHeldValueAndFreesTheSubscriber() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, Never>()
        let freed = Flag()
        let received = Recorder<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let disposable = subject.signal.throttle(.seconds(1), on: scheduler).subscribe(next: { [tracked] value in
            _ = tracked
            received.append(.next(value))
        })
        tracked = nil
        subject.sendNext(1)
        scheduler.advance()
        subject.sendNext(2)
        disposable.dispose()
        #expect(freed.isSet)
        #expect(subject.subscriberCount == 0)
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(2))
        #expect(received.values == [1])
    }
}
