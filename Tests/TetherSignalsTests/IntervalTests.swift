import Testing
import TetherSignals
import TetherTestSupport

@Suite("interval and timer")
struct IntervalTests {
    @Test func intervalCountsOnePerPeriod() {
        let scheduler = TestScheduler()
        let (recorder, disposable) = Signal.interval(.seconds(1), on: scheduler).recordTimed(on: scheduler)
        scheduler.advance(by: .milliseconds(3500))
        #expect(recorder.history == [.at(.seconds(1), .next(0)), .at(.seconds(2), .next(1)), .at(.seconds(3), .next(2))])
        disposable.dispose()
        #expect(scheduler.pendingCount == 0, "disposal stops the repetition")
        scheduler.advance(by: .seconds(5))
        #expect(recorder.history.count == 3)
    }

    @Test func eachSubscriptionHasItsOwnCount() {
        let scheduler = TestScheduler()
        let ticks = Signal<Int, Never>.interval(.seconds(1), on: scheduler)
        let (first, _) = ticks.recordTimed(on: scheduler)
        scheduler.advance(by: .milliseconds(1500))
        let (second, _) = ticks.recordTimed(on: scheduler)
        scheduler.advance(by: .seconds(2))
        #expect(first.history == [.at(.seconds(1), .next(0)), .at(.seconds(2), .next(1)), .at(.seconds(3), .next(2))])
        #expect(second.history == [.at(.milliseconds(2500), .next(0)), .at(.milliseconds(3500), .next(1))])
    }

    @Test func intervalStopsWhenTheSubscriberDisposesFromItsCallback() {
        let scheduler = TestScheduler()
        let holder = Recorder<any Disposable, Never>()
        let received = Recorder<Int, Never>()
        let disposable = Signal.interval(.seconds(1), on: scheduler).subscribe(next: { value in
            received.append(.next(value))
            if value == 2 { holder.values.first?.dispose() }
        })
        holder.append(.next(disposable))
        scheduler.advance(by: .seconds(10))
        #expect(received.values == [0, 1, 2])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func timerSendsZeroOnceThenCompletes() {
        let scheduler = TestScheduler()
        let (recorder, disposable) = Signal.timer(after: .seconds(2), on: scheduler).recordTimed(on: scheduler)
        scheduler.advance(by: .seconds(1))
        #expect(recorder.history == [])
        scheduler.advance(by: .seconds(5))
        #expect(recorder.history == [.at(.seconds(2), .next(0)), .at(.seconds(2), .completed)])
        #expect(disposable.isDisposed)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func disposingATimerCancelsIt() {
        let scheduler = TestScheduler()
        let (recorder, disposable) = Signal.timer(after: .seconds(2), on: scheduler).record()
        disposable.dispose()
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.events == [])
    }
}
