import Synchronization
import TetherTestSupport
import Testing
import TetherSignals

/// A command whose work sends `input * 10` after `delay` of virtual time, then completes (or
/// fails, for a negative input: `delay` passes failures on at once).
private func delayedCommand(
    on scheduler: TestScheduler,
    enabledIf enabling: Signal<Bool, Never>? = nil,
    delay: Duration = .seconds(1),
    concurrent: Bool = false
) -> Command<Int, Int, TestError> {
    Command(enabledIf: enabling, allowsConcurrentExecution: concurrent) { (input: Int) in
        let result: Signal<Int, TestError> = input < 0 ? Signal(error: .boom) : Signal.just(input * 10)
        return result.delay(delay, on: scheduler)
    }
}

@Suite("Command: work a user can start, and whether they may")
struct CommandTests {
    /// One execution: its values reach its subscriber and `values`; `isExecuting` and `isEnabled`
    /// change around it, in virtual time.
    @Test func anExecutionsHistory() {
        let scheduler = TestScheduler()
        let command = delayedCommand(on: scheduler)
        let executing = Recorder<Bool, Never>(), enabled = Recorder<Bool, Never>()
        let values = Recorder<Int, Never>(), result = Recorder<Int, CommandError<TestError>>()
        executing.record(command.isExecuting)
        enabled.record(command.isEnabled)
        values.record(command.values)
        result.record(command.apply(4))
        #expect(command.isExecutingNow)
        scheduler.advance(by: .seconds(1))
        #expect(result.events == [.next(40), .completed])
        #expect(values.events == [.next(40)])
        #expect(executing.events == [.next(false), .next(true), .next(false)])
        #expect(enabled.events == [.next(true), .next(false), .next(true)])
    }

    /// While an execution runs, applying again fails with `.disabled` and runs nothing.
    @Test func executionsNeverOverlap() {
        let scheduler = TestScheduler()
        let command = delayedCommand(on: scheduler)
        let first = Recorder<Int, CommandError<TestError>>(), second = Recorder<Int, CommandError<TestError>>()
        first.record(command.apply(1))
        second.record(command.apply(2))
        scheduler.advance(by: .seconds(5))
        #expect(first.events == [.next(10), .completed])
        #expect(second.events == [.error(.disabled)])
        let third = Recorder<Int, CommandError<TestError>>()
        third.record(command.apply(3))
        scheduler.advance(by: .seconds(1))
        #expect(third.events == [.next(30), .completed], "enabled again once the first ended")
    }

    /// With `allowsConcurrentExecution`, applications overlap: each runs, the command stays
    /// enabled, and `isExecuting` is true from the first start to the last end. The enabling
    /// signal still gates it.
    @Test func concurrentExecutionsOverlapWhenAllowed() {
        let scheduler = TestScheduler()
        let enabling = BehaviorSubject<Bool, Never>(true)
        let command = delayedCommand(on: scheduler, enabledIf: enabling.signal, delay: .seconds(2), concurrent: true)
        #expect(command.allowsConcurrentExecution)
        let executing = Recorder<Bool, Never>(), enabled = Recorder<Bool, Never>()
        executing.record(command.isExecuting)
        enabled.record(command.isEnabled)
        let first = Recorder<Int, CommandError<TestError>>(), second = Recorder<Int, CommandError<TestError>>()
        first.record(command.apply(1))
        scheduler.advance(by: .seconds(1))
        second.record(command.apply(2))
        #expect(command.isEnabledNow && command.isExecutingNow)
        scheduler.advance(by: .seconds(1))
        #expect(first.events == [.next(10), .completed])
        #expect(command.isExecutingNow, "the second still runs")
        scheduler.advance(by: .seconds(1))
        #expect(second.events == [.next(20), .completed])
        #expect(executing.events == [.next(false), .next(true), .next(false)])
        #expect(enabled.events == [.next(true)], "never disabled by its own executions")
        enabling.sendNext(false)
        let third = Recorder<Int, CommandError<TestError>>()
        third.record(command.apply(3))
        #expect(third.events == [.error(.disabled)])
    }

    /// The enabling signal: disabled while it last sent false; applying then fails at once.
    @Test func theEnablingSignalGatesApplications() {
        let scheduler = TestScheduler()
        let valid = BehaviorSubject<Bool, Never>(false)
        let command = delayedCommand(on: scheduler, enabledIf: valid.signal)
        let enabled = Recorder<Bool, Never>()
        enabled.record(command.isEnabled)
        let refused = Recorder<Int, CommandError<TestError>>()
        refused.record(command.apply(1))
        valid.sendNext(true)
        let accepted = Recorder<Int, CommandError<TestError>>()
        accepted.record(command.apply(2))
        valid.sendNext(false)    // while executing: stays disabled after it ends
        scheduler.advance(by: .seconds(1))
        #expect(refused.events == [.error(.disabled)])
        #expect(accepted.events == [.next(20), .completed])
        #expect(enabled.events == [.next(false), .next(true), .next(false)])
        #expect(!command.isEnabledNow)
    }

    /// A failure reaches the subscriber as `.failed` and `errors`, and ends the execution.
    @Test func failuresGoToErrorsAndEndTheExecution() {
        let scheduler = TestScheduler()
        let command = delayedCommand(on: scheduler)
        let errors = Recorder<TestError, Never>(), result = Recorder<Int, CommandError<TestError>>()
        errors.record(command.errors)
        result.record(command.apply(-1))
        scheduler.advance(by: .seconds(1))
        #expect(result.events == [.error(.failed(.boom))])
        #expect(errors.events == [.next(.boom)])
        #expect(command.isEnabledNow)
    }

    /// Disposing an application stops its work and ends the execution.
    @Test func disposingStopsTheWork() {
        let scheduler = TestScheduler()
        let command = delayedCommand(on: scheduler)
        let values = Recorder<Int, Never>()
        values.record(command.values)
        let subscription = command.apply(1).subscribe()
        #expect(command.isExecutingNow)
        subscription.dispose()
        #expect(!command.isExecutingNow)
        #expect(scheduler.pendingCount == 0, "the work's timer was cancelled")
        scheduler.advance(by: .seconds(1))
        #expect(values.events.isEmpty)
    }

    /// A command frees its subscription to the enabling signal when it is freed.
    @Test func aFreedCommandLetsGoOfItsEnablingSignal() {
        let valid = BehaviorSubject<Bool, Never>(true)
        var command: Command<Int, Int, TestError>? = delayedCommand(on: TestScheduler(), enabledIf: valid.signal)
        #expect(valid.subscriberCount == 1)
        weak let freed = command
        command = nil
        #expect(freed == nil)
        #expect(valid.subscriberCount == 0)
    }
}

/// What the concurrent test counts, shared by its threads.
private final class Tally: Sendable {
    let running = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)
    let ran = Atomic<Int>(0)
    let refused = Atomic<Int>(0)
}

extension CommandTests {
    /// Threads apply one command at random moments (seeded): executions never overlap, every
    /// application either runs or is refused as `.disabled`, and afterwards the last values of
    /// `isExecuting` and `isEnabled` are the current state.
    @Test(arguments: [1, 2, 3])
    func concurrentApplicationsNeverOverlap(seed: Int) async {
        let tally = Tally()
        let command = Command<Int, Int, Never> { input in
            Signal { observer in
                if tally.running.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
                    tally.overlaps.add(1, ordering: .relaxed)
                }
                observer.sendNext(input)
                tally.running.subtract(1, ordering: .acquiringAndReleasing)
                observer.sendCompleted()
                return nil
            }
        }
        let lastExecuting = Recorder<Bool, Never>(), lastEnabled = Recorder<Bool, Never>()
        lastExecuting.record(command.isExecuting)
        lastEnabled.record(command.isEnabled)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    var random = SeededRandom(seed: UInt64(seed) &* 31 &+ UInt64(thread))
                    for index in 0..<300 {
                        for _ in 0..<Int.random(in: 0..<50, using: &random) { _ = tally.running.load(ordering: .relaxed) }
                        command.apply(index).subscribe(
                            next: { _ in tally.ran.add(1, ordering: .relaxed) },
                            error: { _ in tally.refused.add(1, ordering: .relaxed) }
                        )
                    }
                }
            }
        }
        let ran = tally.ran.load(ordering: .relaxed), refused = tally.refused.load(ordering: .relaxed)
        #expect(tally.overlaps.load(ordering: .relaxed) == 0)
        #expect(ran + refused == 1_200)
        #expect(ran > 0)
        #expect(lastExecuting.values.last == false && lastEnabled.values.last == true)
        #expect(!command.isExecutingNow && command.isEnabledNow)
    }
}
