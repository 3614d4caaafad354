import Testing
import TetherSignals
import TetherTestSupport

@Suite("Subjects")
struct SubjectTests {
    @Test func aSubjectFreedWithLiveSubscribersCompletesThemAndFreesWhatTheyHold() {
        let freed = Flag()
        let recorder = Recorder<Int, Never>()
        do {
            let subject = Subject<Int, Never>()
            let tracked = Tracked { freed.set() }
            recorder.record(subject.signal.map { value in withExtendedLifetime(tracked) { value } })
            subject.sendNext(1)
        }   // the subject is gone; the subscription was never disposed
        #expect(recorder.events == [.next(1), .completed])
        #expect(freed.isSet, "what the subscription held is freed: the subject's core and the subscription do not keep each other alive")
    }

    @Test func aReplaySubjectFreedCompletesItsSubscribersToo() {
        let recorder = Recorder<Int, Never>()
        let replaying = Recorder<Int, Never>()
        var signal: Signal<Int, Never>?
        do {
            let subject = ReplaySubject<Int, Never>(capacity: 1)
            recorder.record(subject.signal)
            subject.sendNext(7)
            signal = subject.signal
        }
        #expect(recorder.events == [.next(7), .completed])
        replaying.record(signal!)          // a late subscriber: the last value, then completed
        #expect(replaying.events == [.next(7), .completed])
    }

    @Test func subjectBroadcastsToCurrentSubscribers() {
        let subject = Subject<Int, TestError>()
        let (early, _) = subject.signal.record()
        subject.sendNext(1)
        let (late, _) = subject.signal.record()
        subject.sendNext(2)
        subject.sendError(.boom)
        subject.sendNext(3)
        #expect(early.events == [.next(1), .next(2), .error(.boom)])
        #expect(late.events == [.next(2), .error(.boom)])
        let (afterEnd, _) = subject.signal.record()
        #expect(afterEnd.events == [.error(.boom)], "a late subscriber learns that the subject ended")
        #expect(subject.subscriberCount == 0, "subscribers are released after the terminal event")
    }

    @Test func replaySubjectReplaysItsCapacity() {
        let subject = ReplaySubject<Int, Never>(capacity: 2)
        subject.sendNext(1)
        subject.sendNext(2)
        subject.sendNext(3)
        let (first, _) = subject.signal.record()
        subject.sendNext(4)
        subject.sendCompleted()
        let (second, _) = subject.signal.record()
        #expect(first.events == [.next(2), .next(3), .next(4), .completed])
        #expect(second.events == [.next(3), .next(4), .completed])
        #expect(subject.replayedValues == [3, 4])
    }

    @Test func unboundedReplayKeepsEverything() {
        let subject = ReplaySubject<Int, Never>()
        for n in 1...5 { subject.sendNext(n) }
        #expect(subject.signal.record().0.values == [1, 2, 3, 4, 5])
    }

    @Test func behaviorSubjectSendsCurrentValueFirst() {
        let subject = BehaviorSubject<String, Never>("a")
        let (first, _) = subject.signal.record()
        subject.sendNext("b")
        let (second, _) = subject.signal.record()
        #expect(first.values == ["a", "b"])
        #expect(second.values == ["b"])
        #expect(subject.value == "b")
    }

    @Test func subscriberSendingIntoItsSubjectDoesNotRecurse() {
        let subject = Subject<Int, Never>()
        let log = Recorder<String, Never>()
        _ = subject.signal.subscribe(next: { value in
            log.append(.next("begin \(value)"))
            if value < 3 { subject.sendNext(value + 1) }
            log.append(.next("end \(value)"))
        })
        subject.sendNext(1)
        #expect(log.values == ["begin 1", "end 1", "begin 2", "end 2", "begin 3", "end 3"])
    }

    @Test func subscriberDisposingItselfDuringDelivery() {
        let subject = Subject<Int, Never>()
        let holder = Recorder<any Disposable, Never>()
        let (other, _) = subject.signal.record()
        let seen = Recorder<Int, Never>()
        let d = subject.signal.subscribe(next: { value in
            seen.append(.next(value))
            holder.values.first?.dispose()
        })
        holder.append(.next(d))
        subject.sendNext(1)
        subject.sendNext(2)
        #expect(seen.values == [1])
        #expect(other.values == [1, 2])
        #expect(subject.subscriberCount == 1)
    }

    @Test func subscribingFromInsideDeliveryStartsWithTheNextEvent() {
        let subject = Subject<Int, Never>()
        let late = Recorder<Int, Never>()
        let once = Flag()
        _ = subject.signal.subscribe(next: { _ in
            if !once.isSet {
                once.set()
                late.record(subject.signal)
            }
        })
        subject.sendNext(1)
        subject.sendNext(2)
        #expect(late.events == [.next(2)])
    }

    @Test func subjectDoesNotRetainItsSubscriptionsAfterDisposal() {
        let freed = Flag()
        let subject = Subject<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let d = subject.signal.subscribe(next: { [tracked] _ in _ = tracked })
        tracked = nil
        #expect(!freed.isSet)
        d.dispose()
        #expect(freed.isSet)
    }

    @Test func subscriptionDoesNotKeepTheSubjectAlive() {
        let freed = Flag()
        final class Owner: Sendable {
            let subject = Subject<Int, Never>()
            let flag: Flag
            init(flag: Flag) { self.flag = flag }
            deinit { flag.set() }
        }
        var owner: Owner? = Owner(flag: freed)
        let d = owner!.subject.signal.subscribe(next: { _ in })
        owner = nil
        #expect(freed.isSet)
        d.dispose()   // harmless after the subject is gone
    }
}
