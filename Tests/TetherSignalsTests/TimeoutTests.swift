import Testing
import TetherSignals
import TetherTestSupport

@Suite("timeout")
struct TimeoutTests {
    @Test func aSignalThatEndsInTimePassesThroughAndCancelsTheTimer() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, TestError>()
        let (recorder, _) = subject.signal
            .timeout(after: .seconds(5), on: scheduler, error: .other(408))
            .recordTimed(on: scheduler)
        subject.sendNext(1)
        scheduler.advance(by: .seconds(4))
        subject.sendNext(2)
        subject.sendCompleted()
        #expect(scheduler.pendingCount == 0, "the timer was cancelled")
        scheduler.advance(by: .seconds(10))
        #expect(recorder.history == [.at(.zero, .next(1)), .at(.seconds(4), .next(2)), .at(.seconds(4), .completed)])
    }

    @Test func aSlowSignalFailsWithTheGivenErrorAndIsDisposed() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, TestError>()
        let cleaned = Flag()
        let signal = Signal<Int, TestError> { observer in
            let inner = subject.signal.subscribe(observer)
            return ActionDisposable {
                cleaned.set()
                inner.dispose()
            }
        }
        let (recorder, _) = signal.timeout(after: .seconds(5), on: scheduler, error: .other(408)).recordTimed(on: scheduler)
        scheduler.advance(by: .seconds(1))
        subject.sendNext(1)
        scheduler.advance(by: .seconds(3))
        subject.sendNext(2)   // values do not restart the timer
        scheduler.advance(by: .seconds(1))
        #expect(cleaned.isSet)
        #expect(subject.subscriberCount == 0)
        subject.sendNext(3)
        subject.sendCompleted()
        #expect(recorder.history == [
            .at(.seconds(1), .next(1)), .at(.seconds(4), .next(2)), .at(.seconds(5), .error(.other(408))),
        ])
    }

    @Test func upstreamErrorsPassThrough() {
        let scheduler = TestScheduler()
        let (recorder, _) = Signal<Int, TestError>(error: .boom)
            .timeout(after: .seconds(1), on: scheduler, error: .other(408))
            .recordTimed(on: scheduler)
        scheduler.advance(by: .seconds(2))
        #expect(recorder.history == [.at(.zero, .error(.boom))])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func disposalCancelsTheTimer() {
        let scheduler = TestScheduler()
        let (recorder, disposable) = Signal<Int, TestError>.never
            .timeout(after: .seconds(1), on: scheduler, error: .boom)
            .record()
        disposable.dispose()
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(2))
        #expect(recorder.events == [])
    }
}
