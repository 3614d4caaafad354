import Testing
import TetherSignals
import TetherTestSupport

@Suite("Signal creation and subscription")
struct SignalTests {
    @Test func createdSignalRunsOncePerSubscription() {
        let runs = Counter()
        let signal = Signal<Int, Never> { observer in
            runs.increment()
            observer.sendNext(1)
            observer.sendNext(2)
            observer.sendCompleted()
            return nil
        }
        let (first, _) = signal.record()
        let (second, _) = signal.record()
        #expect(first.events == [.next(1), .next(2), .completed])
        #expect(second.events == [.next(1), .next(2), .completed])
        #expect(runs.count == 2)
    }

    @Test func grammarDropsEverythingAfterTerminal() {
        let signal = Signal<Int, TestError> { observer in
            observer.sendNext(1)
            observer.sendError(.boom)
            observer.sendNext(2)
            observer.sendCompleted()
            observer.sendError(.other(1))
            return nil
        }
        let (recorder, _) = signal.record()
        #expect(recorder.events == [.next(1), .error(.boom)])
    }

    @Test func terminalEventDisposesTheSubscription() {
        let cleaned = Flag()
        let subject = Subject<Int, Never>()
        let signal = Signal<Int, Never> { observer in
            subject.signal.subscribe(observer)
            return ActionDisposable { cleaned.set() }
        }
        let (recorder, disposable) = signal.record()
        subject.sendNext(1)
        #expect(!cleaned.isSet)
        subject.sendCompleted()
        #expect(recorder.events == [.next(1), .completed])
        #expect(cleaned.isSet)
        #expect(disposable.isDisposed)
        #expect(subject.subscriberCount == 0)
    }

    @Test func nothingIsDeliveredAfterDisposal() {
        let subject = Subject<Int, Never>()
        let (recorder, disposable) = subject.signal.record()
        subject.sendNext(1)
        disposable.dispose()
        subject.sendNext(2)
        subject.sendCompleted()
        #expect(recorder.events == [.next(1)])
        #expect(subject.subscriberCount == 0)
    }

    @Test func basicSignals() {
        #expect(Signal<Int, Never>.empty.record().0.events == [.completed])
        #expect(Signal<Int, Never>.never.record().0.events == [])
        #expect(Signal<Int, Never>.just(7).record().0.events == [.next(7), .completed])
        #expect(Signal<Int, TestError>(error: .boom).record().0.events == [.error(.boom)])
        #expect(Signal(sequence: [1, 2, 3]).record().0.events == [.next(1), .next(2), .next(3), .completed])
    }

    @Test func deferredRecipeIsMadePerSubscription() {
        let made = Counter()
        let signal = Signal<Int, Never>.deferred { .just(made.increment()) }
        #expect(made.count == 0)
        #expect(signal.record().0.events == [.next(1), .completed])
        #expect(signal.record().0.events == [.next(2), .completed])
    }

    @Test func subscribeWithASubscriber() {
        let relay = Subject<Int, Never>()
        let (recorder, _) = relay.signal.record()
        Signal(sequence: [1, 2]).subscribe(relay)
        #expect(recorder.events == [.next(1), .next(2), .completed])
    }

    @Test func reentrantSendIsDeliveredAfterTheCurrentEvent() {
        let box = _ObserverBox()
        let signal = Signal<Int, Never> { observer in
            box.set(observer)
            observer.sendNext(1)
            return nil
        }
        let order = Recorder<String, Never>()
        _ = signal.subscribe(next: { value in
            order.append(.next("begin \(value)"))
            if value == 1 { box.observer?.sendNext(2) }
            order.append(.next("end \(value)"))
        })
        #expect(order.values == ["begin 1", "end 1", "begin 2", "end 2"])
    }

    @Test func disposedSubscriptionFreesWhatItHeld() {
        let freed = Flag()
        let subject = Subject<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let disposable = subject.signal.map { [tracked] value in (tracked != nil) ? value : 0 }.subscribe(next: { _ in })
        tracked = nil
        #expect(!freed.isSet, "the live subscription keeps its closure")
        disposable.dispose()
        #expect(freed.isSet, "disposing released the map closure and what it captured")
    }

    @Test func subscriptionDoesNotOutliveCompletion() {
        let freed = Flag()
        var tracked: Tracked? = Tracked { freed.set() }
        let signal = Signal(sequence: [1]).map { [tracked] v in tracked == nil ? v : v }
        tracked = nil
        _ = signal.subscribe(next: { _ in })
        #expect(!freed.isSet, "the signal value still holds its recipe")
        _ = consume signal
        #expect(freed.isSet)
    }
}

/// Lets a test reach the observer of a created signal from a subscriber callback.
final class _ObserverBox: Sendable {
    private let storage = Recorder<Observer<Int, Never>, Never>()
    func set(_ observer: Observer<Int, Never>) { storage.append(.next(observer)) }
    var observer: Observer<Int, Never>? { storage.values.last }
}
