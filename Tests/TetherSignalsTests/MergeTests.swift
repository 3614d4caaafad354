import Dispatch
import Synchronization
import Testing
import TetherSignals
import TetherTestSupport

@Suite("merge")
struct MergeTests {
    @Test func mergeInterleavesValuesAsTheyArrive() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let c = UpstreamProbe<Int, TestError>()
        let (recorder, _) = Signal.merge([a.signal, b.signal, c.signal]).record()
        #expect(a.live == 1 && b.live == 1 && c.live == 1, "all sources are subscribed at once")
        a.send(1)
        c.send(3)
        b.send(2)
        a.complete()
        #expect(a.live == 0, "a completed source is disposed at once")
        c.send(4)
        b.complete()
        #expect(!recorder.isTerminated)
        c.complete()
        #expect(recorder.events == [.next(1), .next(3), .next(2), .next(4), .completed])
        #expect(b.live == 0 && c.live == 0)
    }

    @Test func variadicAndWithFormsMerge() {
        let (variadic, _) = Signal.merge(Signal(sequence: [1, 2]), .just(3), .empty).record()
        #expect(variadic.events == [.next(1), .next(2), .next(3), .completed])
        let (with, _) = Signal(sequence: [1]).merge(with: Signal(sequence: [2, 3])).record()
        #expect(with.events == [.next(1), .next(2), .next(3), .completed])
    }

    @Test func mergeOfNothingCompletes() {
        let (recorder, _) = Signal<Int, TestError>.merge([]).record()
        #expect(recorder.events == [.completed])
    }

    @Test func anErrorEndsTheMergeAndDisposesTheOthers() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = Signal.merge(a.signal, b.signal).record()
        a.send(1)
        b.fail(.boom)
        a.send(2)
        a.complete()
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(a.live == 0 && b.live == 0)
        #expect(a.subject.subscriberCount == 0)
    }

    @Test func disposingTheMergeDisposesEverySource() {
        let a = UpstreamProbe<Int, Never>()
        let b = UpstreamProbe<Int, Never>()
        let (recorder, disposable) = a.signal.merge(with: b.signal).record()
        a.send(1)
        disposable.dispose()
        a.send(2)
        b.send(3)
        #expect(recorder.events == [.next(1)])
        #expect(a.live == 0 && b.live == 0)
    }

    @Test func aCompletedSourceIsReleasedWhileOthersRun() {
        let a = Subject<Int, Never>()
        let b = Subject<Int, Never>()
        let freed = Flag()
        let aLifetime = WeakReference<CompoundDisposable>()
        let tracking = Signal<Int, Never> { observer in
            aLifetime.set(observer.lifetime)
            let tracked = Tracked { freed.set() }
            let subscription = a.signal.subscribe(observer)
            return ActionDisposable {
                _ = tracked
                subscription.dispose()
            }
        }
        let (recorder, _) = Signal.merge(tracking, b.signal).record()
        a.sendNext(1)
        #expect(aLifetime.object != nil && !freed.isSet)
        a.sendCompleted()
        #expect(freed.isSet, "a's subscription released what it held")
        #expect(aLifetime.object == nil, "a's subscription was removed from the merge's lifetime")
        b.sendNext(2)
        #expect(recorder.events == [.next(1), .next(2)])
    }

    @Test func aSubscriberSendingIntoASourceIsNotReentered() {
        let a = Subject<Int, Never>()
        let b = Subject<Int, Never>()
        let log = Recorder<String, Never>()
        _ = Signal.merge(a.signal, b.signal).subscribe(next: { value in
            log.append(.next("begin \(value)"))
            if value == 1 { b.sendNext(2) }
            log.append(.next("end \(value)"))
        })
        a.sendNext(1)
        #expect(log.values == ["begin 1", "end 1", "begin 2", "end 2"])
    }

    @Test func stressFromManyThreadsNeverOverlapsAndCountsExactly() {
        let sources = 4
        let perSource = 5_000
        let subjects = (0..<sources).map { _ in Subject<Int, Never>() }
        let overlap = OverlapDetector()
        let received = Counter()
        let completions = Counter()
        let lastPerSource = Mutex([Int](repeating: -1, count: sources))
        let orderViolations = Counter()
        let disposable = Signal.merge(subjects.map(\.signal)).subscribe(
            next: { value in
                overlap.enter()
                received.increment()
                lastPerSource.withLock { last in
                    let source = value / perSource
                    if value <= last[source] { orderViolations.increment() }
                    last[source] = value
                }
                overlap.leave()
            },
            completed: {
                overlap.enter()
                completions.increment()
                overlap.leave()
            }
        )
        runConcurrently(sources) { index in
            for value in 0..<perSource { subjects[index].sendNext(index * perSource + value) }
            subjects[index].sendCompleted()
        }
        #expect(overlap.overlaps == 0)
        #expect(received.count == sources * perSource)
        #expect(orderViolations.count == 0)
        #expect(completions.count == 1, "completed once, after the last source completed")
        #expect(disposable.isDisposed)
    }

    @Test func stressErrorRaceEndsOnceWithNothingAfter() {
        let subjects = (0..<4).map { _ in Subject<Int, TestError>() }
        let overlap = OverlapDetector()
        let recorder = Recorder<Int, TestError>()
        _ = Signal.merge(subjects.map(\.signal)).subscribe(events: { event in
            overlap.enter()
            recorder.append(event)
            overlap.leave()
        })
        runConcurrently(4) { index in
            for value in 0..<1_000 {
                subjects[index].sendNext(value)
                if index == 0 && value == 500 { subjects[0].sendError(.boom) }
            }
        }
        let events = recorder.events
        #expect(overlap.overlaps == 0)
        #expect(events.last == .error(.boom))
        #expect(events.filter(\.isTerminal).count == 1)
        #expect(subjects.allSatisfy { $0.subscriberCount == 0 })
    }
}
