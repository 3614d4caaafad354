import Dispatch
import Testing
import TetherSignals
import TetherTestSupport

@Suite("subscribe(on:)")
struct SubscribeOnTests {
    @Test func subscriptionSideEffectsRunOnTheScheduler() {
        let scheduler = TestScheduler()
        let log = Recorder<String, Never>()
        let signal = Signal<Int, Never> { observer in
            log.append(.next("subscribed at \(scheduler.now)"))
            observer.sendNext(1)
            observer.sendCompleted()
            return ActionDisposable { log.append(.next("cleaned up at \(scheduler.now)")) }
        }
        scheduler.advance(by: .seconds(1))
        let (recorder, _) = signal.subscribe(on: scheduler).recordTimed(on: scheduler)
        #expect(log.values == [], "nothing happens until the scheduler runs")
        scheduler.advance(by: .seconds(1))
        #expect(log.values == ["subscribed at 1.0 seconds", "cleaned up at 1.0 seconds"])
        #expect(recorder.history == [.at(.seconds(1), .next(1)), .at(.seconds(1), .completed)])
    }

    @Test func disposingBeforeTheStartNeverSubscribes() {
        let scheduler = TestScheduler()
        let subscriptions = Counter()
        let signal = Signal<Int, Never> { observer in
            subscriptions.increment()
            observer.sendNext(1)
            return nil
        }
        let (recorder, disposable) = signal.subscribe(on: scheduler).record()
        disposable.dispose()
        #expect(scheduler.pendingCount == 0, "the scheduled start was cancelled")
        scheduler.advance(by: .seconds(1))
        #expect(subscriptions.count == 0)
        #expect(recorder.events == [])
    }

    @Test func cleanupRunsOnTheSchedulerButDeliveryStopsAtOnce() {
        let scheduler = TestScheduler()
        let subject = Subject<Int, Never>()
        let cleanupTimes = Recorder<Duration, Never>()
        let signal = Signal<Int, Never> { observer in
            let inner = subject.signal.subscribe(observer)
            return ActionDisposable {
                cleanupTimes.append(.next(scheduler.now))
                inner.dispose()
            }
        }
        let (recorder, disposable) = signal.subscribe(on: scheduler).recordTimed(on: scheduler)
        scheduler.advance()
        #expect(subject.subscriberCount == 1)
        subject.sendNext(1)
        scheduler.advance(by: .seconds(1))
        disposable.dispose()
        subject.sendNext(2)
        #expect(recorder.history == [.at(.zero, .next(1))], "nothing is delivered after dispose()")
        #expect(cleanupTimes.values == [], "the cleanup waits for the scheduler")
        #expect(subject.subscriberCount == 1)
        scheduler.advance(by: .seconds(1))
        #expect(cleanupTimes.values == [.seconds(1)], "the cleanup ran when the scheduler next ran")
        #expect(subject.subscriberCount == 0)
    }

    @Test func aSynchronousProducerStopsWhenDisposedFromItsOwnDelivery() {
        let scheduler = TestScheduler()
        let cleaned = Flag()
        let numbers = Signal<Int, Never> { observer in
            var n = 0
            while !observer.isDisposed {   // stops only when the subscription is disposed
                n += 1
                observer.sendNext(n)
            }
            return ActionDisposable { cleaned.set() }
        }
        let holder = Recorder<any Disposable, Never>()
        let received = Recorder<Int, Never>()
        let disposable = numbers.subscribe(on: scheduler).subscribe(next: { value in
            received.append(.next(value))
            if value == 3 { holder.values.first?.dispose() }
        })
        holder.append(.next(disposable))
        scheduler.advance()   // returns: the producer saw the disposal at once
        #expect(received.values == [1, 2, 3])
        #expect(cleaned.isSet)
    }

    @Test func subscribesOnARealQueue() {
        let queue = DispatchQueue(label: "test.subscribe-on")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let onQueue = Flag()
        let done = DispatchSemaphore(value: 0)
        let signal = Signal<Int, Never> { observer in
            if DispatchQueue.getSpecific(key: key) == true { onQueue.set() }
            observer.sendNext(1)
            observer.sendCompleted()
            return nil
        }
        let recorder = Recorder<Int, Never>()
        signal.subscribe(on: QueueScheduler(queue: queue)).subscribe(
            next: { recorder.append(.next($0)) },
            completed: { done.signal() }
        )
        #expect(done.wait(timeout: .now() + .seconds(5)) == .success)
        #expect(onQueue.isSet)
        #expect(recorder.values == [1])
    }
}
