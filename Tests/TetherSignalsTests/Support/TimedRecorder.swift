import Synchronization
import TetherSignals
import TetherTestSupport

/// One event and the scheduler time at which it arrived.
struct Timed<Value, Failure: Error> {
    let time: Duration
    let event: Event<Value, Failure>

    /// `.at(.seconds(1), .next(5))`: `.next(5)` arrived at virtual time 1 s.
    static func at(_ time: Duration, _ event: Event<Value, Failure>) -> Timed {
        Timed(time: time, event: event)
    }
}

extension Timed: Equatable where Value: Equatable, Failure: Equatable {}

extension Timed: CustomStringConvertible {
    var description: String { "\(time): \(event)" }
}

/// Records every event of a subscription with the time of `scheduler` when it arrived, so a
/// test can compare the whole timed history with one equality.
final class TimedRecorder<Value, Failure: Error>: Sendable {
    private let scheduler: any Scheduler
    private let storage = Recorder<Timed<Value, Failure>, Never>()

    init(_ scheduler: any Scheduler) {
        self.scheduler = scheduler
    }

    /// The events received so far, with their times.
    var history: [Timed<Value, Failure>] { storage.values }

    /// The events received so far, without times.
    var events: [Event<Value, Failure>] { history.map(\.event) }

    /// Subscribes to `signal`, recording into this recorder.
    @discardableResult
    func record(_ signal: Signal<Value, Failure>) -> any Disposable {
        signal.subscribe(events: { [self] event in
            storage.append(.next(Timed(time: scheduler.now, event: event)))
        })
    }
}

extension Signal {
    /// Subscribes a new timed recorder to this signal, stamping events with `scheduler.now`.
    func recordTimed(on scheduler: any Scheduler) -> (TimedRecorder<Value, Failure>, any Disposable) {
        let recorder = TimedRecorder<Value, Failure>(scheduler)
        let disposable = recorder.record(self)
        return (recorder, disposable)
    }
}
