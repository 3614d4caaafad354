import Dispatch
import Testing
import TetherSignals
import TetherTestSupport

/// Real-time tests: each waits only a few milliseconds, on a semaphore with a generous timeout
/// (so a broken scheduler fails the test instead of hanging it). Behaviour that does not need
/// a real queue is tested with `TestScheduler`.
@Suite("QueueScheduler and MainScheduler")
struct QueueSchedulerTests {

    private func wait(_ semaphore: DispatchSemaphore) -> Bool {
        semaphore.wait(timeout: .now() + .seconds(5)) == .success
    }

    @Test func scheduledWorkRunsOnTheQueueInOrder() {
        let queue = DispatchQueue(label: "test.queue")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let scheduler = QueueScheduler(queue: queue)
        #expect(scheduler.queue === queue)
        let order = Recorder<Int, Never>()
        let onQueue = Counter()
        let done = DispatchSemaphore(value: 0)
        for n in 0..<100 {
            scheduler.schedule {
                if DispatchQueue.getSpecific(key: key) == 7 { onQueue.increment() }
                order.append(.next(n))
                if n == 99 { done.signal() }
            }
        }
        #expect(wait(done))
        #expect(order.values == Array(0..<100))
        #expect(onQueue.count == 100)
    }

    @Test func delayedWorkWaitsAtLeastTheDelay() {
        let scheduler = QueueScheduler(label: "test.delay", qos: .userInitiated)
        let done = DispatchSemaphore(value: 0)
        let start = scheduler.now
        let elapsed = Recorder<Duration, Never>()
        let work = scheduler.schedule(after: .milliseconds(5)) {
            elapsed.append(.next(scheduler.now - start))
            done.signal()
        }
        #expect(wait(done))
        #expect(elapsed.values.count == 1)
        #expect(elapsed.values[0] >= .milliseconds(5))
        #expect(work.isDisposed, "one-shot work is finished after it ran")
    }

    @Test func delayedWorkInOrderOfDueTime() {
        let scheduler = QueueScheduler(label: "test.due")
        let order = Recorder<String, Never>()
        let done = DispatchSemaphore(value: 0)
        scheduler.schedule(after: .milliseconds(6)) { order.append(.next("late")); done.signal() }
        scheduler.schedule(after: .milliseconds(2)) { order.append(.next("early")) }
        scheduler.schedule { order.append(.next("now")) }
        #expect(wait(done))
        #expect(order.values == ["now", "early", "late"])
    }

    @Test func cancelledWorkNeverRunsAndIsReleasedAtOnce() {
        let scheduler = QueueScheduler(label: "test.cancel")
        let ran = Flag()
        let freed = Flag()
        var tracked: Tracked? = Tracked { freed.set() }
        let cancelled = scheduler.schedule(after: .milliseconds(3)) { [tracked] in
            _ = tracked
            ran.set()
        }
        tracked = nil
        cancelled.dispose()
        #expect(freed.isSet, "disposing released the closure although the queue still holds the timer")
        let done = DispatchSemaphore(value: 0)
        scheduler.schedule(after: .milliseconds(6)) { done.signal() }
        #expect(wait(done))
        #expect(!ran.isSet)
    }

    @Test func repeatingWorkRunsUntilDisposed() {
        let scheduler = QueueScheduler(label: "test.repeat")
        let runs = Counter()
        let holder = Recorder<any Disposable, Never>()
        let third = DispatchSemaphore(value: 0)
        let start = scheduler.now
        let times = Recorder<Duration, Never>()
        // The disposable is stored before the first run (after 1 ms) can read it.
        scheduler.queue.sync {
            let work = scheduler.schedule(after: .milliseconds(1), repeating: .milliseconds(2)) {
                times.append(.next(scheduler.now - start))
                if runs.increment() == 3 {
                    holder.values.first?.dispose()
                    third.signal()
                }
            }
            holder.append(.next(work))
        }
        #expect(wait(third))
        let settled = DispatchSemaphore(value: 0)
        scheduler.schedule(after: .milliseconds(8)) { settled.signal() }
        #expect(wait(settled))
        #expect(runs.count == 3, "no run after the disposal")
        #expect(holder.values.first?.isDisposed == true)
        let t = times.values
        #expect(t.count == 3)
        if t.count == 3 {
            #expect(t[0] >= .milliseconds(1))
            #expect(t[2] >= .milliseconds(5), "three runs take at least delay + 2 intervals")
        }
    }

    @Test func nowIsMonotonicAndSharesTheImmediateSchedulersOrigin() {
        let scheduler = QueueScheduler()
        let a = scheduler.now
        let b = ImmediateScheduler.shared.now
        let c = scheduler.now
        #expect(a <= b && b <= c)
        #expect(MainScheduler.shared.now >= c)
    }

    @Test func hugeDelaysDoNotOverflow() {
        let scheduler = QueueScheduler(label: "test.huge")
        let ran = Flag()
        let work = scheduler.schedule(after: .seconds(Int64.max)) { ran.set() }
        let done = DispatchSemaphore(value: 0)
        scheduler.schedule(after: .milliseconds(1)) { done.signal() }
        #expect(wait(done))
        #expect(!ran.isSet)
        work.dispose()
    }

    @Test func mainSchedulerRunsOnTheMainQueue() {
        #expect(!MainScheduler.isOnMainQueue, "tests run off the main queue")
        let done = DispatchSemaphore(value: 0)
        let onMain = Flag()
        MainScheduler.shared.schedule {
            if MainScheduler.isOnMainQueue { onMain.set() }
            done.signal()
        }
        #expect(wait(done), "the test runner serves the main queue")
        #expect(onMain.isSet)
    }

    @Test func implicitSchedulerMembers() {
        func kind<S: Scheduler>(_ scheduler: S) -> String { "\(S.self)" }
        #expect(kind(.main) == "MainScheduler")
        #expect(kind(.immediate) == "ImmediateScheduler")
    }
}
