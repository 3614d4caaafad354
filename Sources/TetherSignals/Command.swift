import Synchronization

/// Why applying a command produced no values of its own.
public enum CommandError<Failure: Error>: Error {
    /// The command was disabled (its enabling signal last sent `false`, or it was executing)
    /// when the application was subscribed: nothing ran.
    case disabled
    /// The work failed.
    case failed(Failure)
}

extension CommandError: Equatable where Failure: Equatable {}

/// A piece of work a user can start, and whether they may start it now (ReactiveCocoa's
/// `RACCommand`, ReactiveSwift's `Action`): a Save button, a key that sends an invoice.
///
/// A command is built from a closure that turns an input into a signal: the work. `apply(_:)`
/// returns a cold signal; subscribing to it starts one execution, unless the command is
/// disabled, in which case it fails at once with `CommandError.disabled` and nothing runs.
/// A command is enabled while its enabling signal last sent `true` (or has sent nothing yet)
/// and it is not executing: executions never overlap. A command made with
/// `allowsConcurrentExecution: true` (RACCommand's property of that name) stays enabled while it
/// executes: each application runs, and `isExecuting` is true while any of them runs. Choose it
/// for work whose runs are independent (loading pages); keep the default for work that must not
/// run twice at once (sending an invoice, a Save button pressed twice).
///
/// Every execution's values go to its own subscriber and to `values`; its failure to its
/// subscriber (as `.failed`) and to `errors`. `isExecuting` and `isEnabled` send their current
/// value to each new subscriber, then every change.
///
/// ```swift
/// let save = Command(enabledIf: observe(form, \.isValid)) { (invoice: Invoice) in
///     store.saving(invoice)              // a Signal<Void, StoreError>
/// }
/// save.isEnabled.sink { saveButton.isEnabled = $0 }
/// save.errors.sink { banner.show("Not saved: \($0)") }
/// save.apply(invoice).subscribe()      // runs, if enabled
/// ```
public final class Command<Input: Sendable, Output, Failure: Error>: Sendable {
    /// The commands's state, changed under the lock; the subjects are sent to outside it.
    private struct State {
        /// The enabling signal's latest value (true until it sends one).
        var enabledBySignal = true
        /// The executions running (at most one unless `allowsConcurrentExecution`).
        var executions = 0
        let allowsConcurrentExecution: Bool
        /// Incremented by every change, so `publish()` can tell it sent the latest state.
        var version = 0
        var executing: Bool { executions > 0 }
        var enabled: Bool { enabledBySignal && (allowsConcurrentExecution || executions == 0) }
    }

    private let work: @Sendable (Input) -> Signal<Output, Failure>
    private let state: Mutex<State>
    private let enabledSubject: BehaviorSubject<Bool, Never>
    private let executingSubject = BehaviorSubject<Bool, Never>(false)
    private let valuesSubject = Subject<Output, Never>()
    private let errorsSubject = Subject<Failure, Never>()
    /// The subscription to the enabling signal, ended when the command is freed.
    private let enabling = SerialDisposable()

    /// Creates a command that runs `work` for each application, enabled while `enabledIf` last
    /// sent `true` (or sent nothing yet) and, unless `allowsConcurrentExecution`, no execution is
    /// running. The command holds its subscription to `enabledIf` until it is freed.
    ///
    /// ```swift
    /// let send = Command(enabledIf: observe(invoice, \.isComplete)) { (_: Void) in mailer.send(invoice) }
    /// let load = Command(allowsConcurrentExecution: true) { (page: Int) in api.page(page) }
    /// ```
    public init(
        enabledIf enabling: Signal<Bool, Never>? = nil,
        allowsConcurrentExecution: Bool = false,
        _ work: @escaping @Sendable (Input) -> Signal<Output, Failure>
    ) {
        self.work = work
        self.state = Mutex(State(allowsConcurrentExecution: allowsConcurrentExecution))
        self.enabledSubject = BehaviorSubject(true)
        guard let enabling else { return }
        let subscription = enabling.subscribe(next: { [weak self] enabled in self?.setEnabledBySignal(enabled) })
        self.enabling.inner = subscription
    }

    deinit { enabling.dispose() }

    /// Whether the command may be applied now; the current value first, then every change.
    public var isEnabled: Signal<Bool, Never> { enabledSubject.signal.distinctUntilChanged() }

    /// Whether an execution is running; the current value first, then every change.
    public var isExecuting: Signal<Bool, Never> { executingSubject.signal.distinctUntilChanged() }

    /// Whether the command may be applied at this moment.
    public var isEnabledNow: Bool { state.withLock { $0.enabled } }

    /// Whether an execution is running at this moment.
    public var isExecutingNow: Bool { state.withLock { $0.executing } }

    /// Whether applications may run while another runs (set when the command is made).
    public var allowsConcurrentExecution: Bool { state.withLock { $0.allowsConcurrentExecution } }

    /// The values of every execution, as they are sent.
    public var values: Signal<Output, Never> { valuesSubject.signal }

    /// The failure of every execution that failed.
    public var errors: Signal<Failure, Never> { errorsSubject.signal }

    /// A signal that, when subscribed, runs one execution with `input` if the command is enabled
    /// at that moment, and fails with `CommandError.disabled` otherwise. Disposing the
    /// subscription stops the execution (its work's subscription is disposed) and ends it.
    ///
    /// ```swift
    /// save.apply(invoice).subscribe(error: { print("not saved:", $0) })
    /// ```
    public func apply(_ input: Input) -> Signal<Output, CommandError<Failure>> {
        Signal<Output, CommandError<Failure>>(_unchecked: { [self] sink, lifetime in
            let started = state.withLock { state -> Bool in
                guard state.enabled else { return false }
                state.executions += 1
                state.version += 1
                return true
            }
            guard started else {
                sink(.error(.disabled))
                return
            }
            publish()
            let ended = Atomic<Bool>(false)
            let end: @Sendable () -> Void = { [weak self] in
                guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
                self?.finishExecution()
            }
            lifetime.add(end)
            let inner = CompoundDisposable()
            lifetime.add(inner)
            work(input)._run({ [weak self] event in
                switch event {
                case .next(let value):
                    self?.valuesSubject.sendNext(value)
                    sink(.next(value))
                case .error(let failure):
                    self?.errorsSubject.sendNext(failure)
                    sink(.error(.failed(failure)))
                    end()
                case .completed:
                    sink(.completed)
                    end()
                }
            }, inner)
        })
    }

    private func setEnabledBySignal(_ enabled: Bool) {
        state.withLock {
            $0.enabledBySignal = enabled
            $0.version += 1
        }
        publish()
    }

    private func finishExecution() {
        state.withLock {
            $0.executions -= 1
            $0.version += 1
        }
        publish()
    }

    /// Sends the current state to `isExecuting` and `isEnabled` (each drops repeats). Read under
    /// the lock, sent outside it (a subscriber may apply the command again), and sent again if it
    /// changed meanwhile: another thread's older state may have gone out after it, and the last
    /// values sent must be the current ones.
    private func publish() {
        while true {
            let (version, executing, enabled) = state.withLock { ($0.version, $0.executing, $0.enabled) }
            executingSubject.sendNext(executing)
            enabledSubject.sendNext(enabled)
            if state.withLock({ $0.version == version }) { return }
        }
    }
}
