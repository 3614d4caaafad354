import Testing
import TetherSignals
import TetherTestSupport

@Suite("debounce")
struct DebounceTests {
    @Test func sendsAValueOnlyAfterAQuietInterval() {
        let scheduler = TestScheduler()
        let subject = Subject<String, Never>()
        let (recorder, _) = subject.signal.debounce(.seconds(1), on: scheduler).recordTimed(on: scheduler)
        subject.sendNext("a")
        scheduler.advance(to: .milliseconds(500))
        subject.sendNext("ab")                 // restarts the wait
        scheduler.advance(to: .milliseconds(1400))
        #expect(recorder.history == [])
        scheduler.advance(to: .milliseconds(1500))
        subject.sendNext("abc")
        scheduler.advance(to: .seconds(3))
        scheduler.advance(to: .milliseconds(4500))
        subject.sendNext("abcd")
        scheduler.advance(to: .milliseconds(4800))
        subject.sendCompleted()                // flushes "abcd" at once
        scheduler.advance(by: .seconds(5))
        #expect(recorder.history == [
            .at(.milliseconds(1500), .next("ab")),
            .at(.milliseconds(2500), .next("abc")),
            .at(.milliseconds(4800), .next("abcd")),
            .at(.milliseconds(4800), .completed),
        ])
        #expect(subject.subscriberCount == 0)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func completionWithNothingWaiting() {
        let scheduler = TestScheduler()
        let (recorder, _) = Signal<Int, Never>.empty.debounce(.seconds(1), on: scheduler).recordTimed(on: scheduler)
        scheduler.advance()
        #expect(recorder.history == [.at(.zero, .completed)])
    }

    @Test func anErrorDropsTheWaitingValue() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, TestError>()
        let (recorder, _) = subject.signal.debounce(.seconds(1), on: scheduler).recordTimed(on: scheduler)
        subject.sendNext(1)
        scheduler.advance(by: .seconds(2))
        subject.sendNext(2)
        scheduler.advance(by: .milliseconds(500))
        subject.sendError(.boom)
        scheduler.advance(by: .seconds(2))
        #expect(recorder.history == [.at(.seconds(1), .next(1)), .at(.milliseconds(2500), .error(.boom))])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func disposalCancelsTheTimerAndFreesTheSubscriber() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, Never>()
        let freed = Flag()
        let received = Recorder<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let disposable = subject.signal.debounce(.seconds(1), on: scheduler).subscribe(next: { [tracked] value in
            _ = tracked
            received.append(.next(value))
        })
        tracked = nil
        subject.sendNext(1)
        disposable.dispose()
        #expect(freed.isSet)
        #expect(subject.subscriberCount == 0)
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(2))
        #expect(received.events == [])
    }
}
