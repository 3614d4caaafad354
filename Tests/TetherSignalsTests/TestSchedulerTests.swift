import Testing
import TetherSignals
import TetherTestSupport

@Suite("TestScheduler")
struct TestSchedulerTests {
    /// Logs "name@time" for each action run.
    private func logger(_ scheduler: TestScheduler) -> (Recorder<String, Never>, @Sendable (String) -> @Sendable () -> Void) {
        let log = Recorder<String, Never>()
        return (log, { name in { log.append(.next("\(name)@\(scheduler.now)")) } })
    }

    @Test func nothingRunsUntilTimeAdvances() {
        let scheduler = TestScheduler()
        let (log, entry) = logger(scheduler)
        scheduler.schedule(entry("now"))
        scheduler.schedule(after: .seconds(1), entry("later"))
        #expect(log.values == [])
        #expect(scheduler.pendingCount == 2)
        scheduler.advance()
        #expect(log.values == ["now@0.0 seconds"])
        scheduler.advance(by: .milliseconds(999))
        #expect(log.values == ["now@0.0 seconds"])
        scheduler.advance(by: .milliseconds(1))
        #expect(log.values == ["now@0.0 seconds", "later@1.0 seconds"])
        #expect(scheduler.now == .seconds(1))
        #expect(scheduler.pendingCount == 0)
    }

    @Test func runsInOrderOfDueTimeWithTiesInScheduleOrder() {
        let scheduler = TestScheduler()
        let (log, entry) = logger(scheduler)
        scheduler.schedule(after: .seconds(3), entry("c"))
        scheduler.schedule(after: .seconds(1), entry("a1"))
        scheduler.schedule(after: .seconds(2), entry("b"))
        scheduler.schedule(after: .seconds(1), entry("a2"))
        scheduler.schedule(entry("zero"))
        scheduler.schedule(after: .seconds(1), entry("a3"))
        scheduler.advance(by: .seconds(5))
        #expect(log.values == [
            "zero@0.0 seconds", "a1@1.0 seconds", "a2@1.0 seconds", "a3@1.0 seconds", "b@2.0 seconds", "c@3.0 seconds",
        ])
        #expect(scheduler.now == .seconds(5))
    }

    @Test func cancelledWorkDoesNotRunAndIsReleasedAtOnce() {
        let scheduler = TestScheduler()
        let (log, entry) = logger(scheduler)
        let freed = Flag()
        var tracked: Tracked? = Tracked { freed.set() }
        let cancelled = scheduler.schedule(after: .seconds(1)) { [tracked] in
            _ = tracked
            log.append(.next("cancelled ran"))
        }
        tracked = nil
        scheduler.schedule(after: .seconds(2), entry("kept"))
        #expect(!freed.isSet)
        #expect(!cancelled.isDisposed)
        cancelled.dispose()
        #expect(cancelled.isDisposed)
        #expect(freed.isSet, "the scheduler no longer holds the cancelled closure")
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .seconds(2))
        #expect(log.values == ["kept@2.0 seconds"])
    }

    @Test func oneShotWorkReportsDisposedAfterItRan() {
        let scheduler = TestScheduler()
        let ran = Counter()
        let work = scheduler.schedule { ran.increment() }
        scheduler.advance()
        #expect(ran.count == 1)
        #expect(work.isDisposed)
        work.dispose()
        scheduler.advance(by: .seconds(1))
        #expect(ran.count == 1)
    }

    @Test func repeatingWorkRunsEveryIntervalUntilDisposed() {
        let scheduler = TestScheduler()
        let (log, entry) = logger(scheduler)
        let ticking = scheduler.schedule(after: .seconds(1), repeating: .seconds(2), entry("tick"))
        scheduler.advance(by: .seconds(6))
        #expect(log.values == ["tick@1.0 seconds", "tick@3.0 seconds", "tick@5.0 seconds"])
        ticking.dispose()
        scheduler.advance(by: .seconds(10))
        #expect(log.values.count == 3)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func repeatingWorkCanCancelItselfFromInsideItsAction() {
        let scheduler = TestScheduler()
        let runs = Counter()
        let holder = Recorder<any Disposable, Never>()
        let work = scheduler.schedule(after: .zero, repeating: .seconds(1)) {
            if runs.increment() == 3 { holder.values.first?.dispose() }
        }
        holder.append(.next(work))
        scheduler.advance(by: .seconds(10))
        #expect(runs.count == 3)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func workScheduledByWorkRunsIfDueWithinTheWindow() {
        let scheduler = TestScheduler()
        let (log, entry) = logger(scheduler)
        scheduler.schedule(after: .seconds(1)) {
            log.append(.next("outer@\(scheduler.now)"))
            scheduler.schedule(entry("inner-now"))
            scheduler.schedule(after: .seconds(1), entry("inner+1"))
            scheduler.schedule(after: .seconds(5), entry("inner+5"))
        }
        scheduler.advance(by: .seconds(3))
        #expect(log.values == ["outer@1.0 seconds", "inner-now@1.0 seconds", "inner+1@2.0 seconds"])
        #expect(scheduler.now == .seconds(3))
        scheduler.advance(by: .seconds(3))
        #expect(log.values.last == "inner+5@6.0 seconds")
    }

    @Test func advanceToAnInstantAndNeverBackwards() {
        let scheduler = TestScheduler()
        let (log, entry) = logger(scheduler)
        scheduler.schedule(after: .seconds(2), entry("two"))
        scheduler.advance(to: .seconds(2))
        #expect(log.values == ["two@2.0 seconds"])
        scheduler.advance(to: .seconds(1))
        #expect(scheduler.now == .seconds(2))
        scheduler.advance(by: .seconds(-5))
        #expect(scheduler.now == .seconds(2))
    }

    @Test func runExecutesEverythingAndAdvancesTheClock() {
        let scheduler = TestScheduler()
        let (log, entry) = logger(scheduler)
        scheduler.schedule(after: .seconds(10), entry("ten"))
        scheduler.schedule(after: .seconds(4)) {
            log.append(.next("four@\(scheduler.now)"))
            scheduler.schedule(after: .seconds(20), entry("twenty-four"))
        }
        #expect(scheduler.run())
        #expect(log.values == ["four@4.0 seconds", "ten@10.0 seconds", "twenty-four@24.0 seconds"])
        #expect(scheduler.now == .seconds(24))
    }

    @Test func runStopsAtItsLimitWhenWorkRepeatsForever() {
        let scheduler = TestScheduler()
        let runs = Counter()
        scheduler.schedule(after: .zero, repeating: .seconds(1)) { runs.increment() }
        #expect(scheduler.run(limit: 5) == false)
        #expect(runs.count == 5)
        #expect(scheduler.now == .seconds(4))
    }
}
