import Testing
import TetherSignals
import TetherTestSupport

/// How a subject's end reaches its subscribers: sent on purpose, or because it was freed.
@Suite("Subjects that end, and subjects that are freed")
struct SubjectEndTests {
    /// A trigger nobody can fire any more does not stop `take(until:)`: the values go on.
    @Test func aFreedTriggerDoesNotStopTakeUntil() {
        let source = Subject<Int, Never>()
        var trigger: Subject<Void, Never>? = Subject()
        let recorder = Recorder<Int, Never>()
        recorder.record(source.signal.take(until: trigger!.signal.map { _ in 0 }))
        source.sendNext(1)
        trigger = nil
        source.sendNext(2)
        source.sendCompleted()
        #expect(recorder.events == [.next(1), .next(2), .completed])
    }

    /// The same when the trigger was freed before `take(until:)` subscribed to its signal.
    @Test func aTriggerFreedBeforeSubscribingDoesNotStopTakeUntil() {
        let source = Subject<Int, Never>()
        let triggerSignal = Subject<Void, Never>().signal   // the subject is freed at once
        let recorder = Recorder<Int, Never>()
        recorder.record(source.signal.take(until: triggerSignal))
        source.sendNext(1)
        #expect(recorder.events == [.next(1)])
    }

    /// A trigger that is sent a completion, or a value, fires.
    @Test(arguments: [true, false])
    func aTriggerThatEndsOrSendsStopsTakeUntil(completes: Bool) {
        let source = Subject<Int, Never>()
        let trigger = Subject<Void, Never>()
        let recorder = Recorder<Int, Never>()
        recorder.record(source.signal.take(until: trigger.signal))
        source.sendNext(1)
        if completes { trigger.sendCompleted() } else { trigger.sendNext(()) }
        source.sendNext(2)
        #expect(recorder.events == [.next(1), .completed])
    }

    /// Ended on purpose, a behavior subject's value is no longer current: a late subscriber
    /// receives only the terminal event (Rx's rule). `value` still reads the last value.
    @Test func anEndedBehaviorSubjectSendsOnlyItsEnd() {
        let completed = BehaviorSubject<Int, TestError>(1)
        completed.sendNext(2)
        completed.sendCompleted()
        let failed = BehaviorSubject<Int, TestError>(1)
        failed.sendError(.boom)
        let late = Recorder<Int, TestError>()
        let lateFailed = Recorder<Int, TestError>()
        late.record(completed.signal)
        lateFailed.record(failed.signal)
        #expect(late.events == [.completed])
        #expect(lateFailed.events == [.error(.boom)])
        #expect(completed.value == 2)
    }

    /// Freed without ending, a behavior subject is a constant: its signal sends the last value,
    /// then completes, to every late subscriber.
    @Test func aFreedBehaviorSubjectIsAConstant() {
        let constant = BehaviorSubject<String, Never>("9.00").signal
        let first = Recorder<String, Never>()
        let second = Recorder<String, Never>()
        first.record(constant)
        second.record(constant.map { "$" + $0 })
        #expect(first.events == [.next("9.00"), .completed])
        #expect(second.events == [.next("$9.00"), .completed])
    }

    /// A replay subject keeps replaying after it ended: that is what it is for.
    @Test func anEndedReplaySubjectStillReplays() {
        let log = ReplaySubject<Int, Never>(capacity: 2)
        log.sendNext(1)
        log.sendNext(2)
        log.sendCompleted()
        let late = Recorder<Int, Never>()
        late.record(log.signal)
        #expect(late.events == [.next(1), .next(2), .completed])
    }
}
