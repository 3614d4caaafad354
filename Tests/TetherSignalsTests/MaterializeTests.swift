import Testing
import TetherSignals
import TetherTestSupport

@Suite("materialize and dematerialize")
struct MaterializeTests {
    @Test func materializeTurnsEventsIntoValues() {
        let (recorder, _) = Signal(sequence: [1, 2]).materialize().record()
        #expect(recorder.events == [.next(.next(1)), .next(.next(2)), .next(.completed), .completed])
    }

    @Test func materializeTurnsAnErrorIntoAValueAndCompletes() {
        let source = CountingSource<Int, TestError>()
        let (recorder, disposable) = source.signal.materialize().record()
        source.send(1)
        source.fail(.boom)
        source.send(2)
        #expect(recorder.events == [.next(.next(1)), .next(.error(.boom)), .completed])
        #expect(disposable.isDisposed)
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func materializeDisposalUnsubscribes() {
        let source = CountingSource<Int, TestError>()
        let (recorder, disposable) = source.signal.materialize().record()
        source.send(1)
        disposable.dispose()
        source.fail(.boom)
        #expect(recorder.events == [.next(.next(1))])
        #expect(source.cleanups.count == 1)
    }

    @Test func dematerializeTurnsValuesBackIntoEvents() {
        let events: [Event<Int, TestError>] = [.next(1), .next(2), .error(.other(3))]
        let (recorder, _) = Signal(sequence: events).dematerialize().record()
        #expect(recorder.events == [.next(1), .next(2), .error(.other(3))])
    }

    @Test func roundTrip() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.materialize().dematerialize().record()
        source.send(1)
        source.fail(.boom)
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(!source.isSubscribed)
        let (completed, _) = Signal<Int, Never>(sequence: [7]).materialize().dematerialize().record()
        #expect(completed.events == [.next(7), .completed])
    }

    @Test func dematerializeEndsAtTheFirstTerminalEventAndStopsUpstream() {
        let produced = Counter()
        let infinite = Signal(sequence: CountingNaturals(produced: produced)).map { n -> Event<Int, TestError> in
            n == 2 ? .completed : .next(n)
        }
        let (recorder, _) = infinite.dematerialize().record()
        #expect(recorder.events == [.next(1), .completed])
        #expect(produced.count == 2, "the sequence loop saw the disposal and pulled nothing more")
    }

    @Test func dematerializeIgnoresEventsAfterItsTerminal() {
        // A raw stage that keeps sending after the terminal value, to prove the flag works
        // even when nothing downstream filters.
        let raw = Signal<Event<Int, TestError>, Never>(_unchecked: { sink, _ in
            sink(.next(.next(1)))
            sink(.next(.error(.boom)))
            sink(.next(.next(2)))
            sink(.next(.completed))
            sink(.completed)
        })
        let recorder = Recorder<Int, TestError>()
        raw.dematerialize().runRaw { recorder.append($0) }
        #expect(recorder.events == [.next(1), .error(.boom)])
    }

    @Test func dematerializeCompletesWhenUpstreamCompletes() {
        let (recorder, _) = Signal<Event<Int, TestError>, Never>(sequence: [.next(1)]).dematerialize().record()
        #expect(recorder.events == [.next(1), .completed])
    }
}
