import Logging

/// The loggers Tether's libraries write their diagnostics to (swift-log).
///
/// | label | level | what |
/// | --- | --- | --- |
/// | `tether.binding` | warning | a binding or a model's subscription ended because its signal failed or a value arrived off the model's thread (`BindingDiagnostics`) |
/// | `tether.store` | error | changes a store could not write when it closed at exit or was freed (they are lost) |
///
/// A logger is made when a message is logged, so it uses the handler the app bootstrapped with
/// `LoggingSystem.bootstrap`, whenever it did so. An app that bootstraps nothing gets swift-log's
/// default handler: standard error, `info` and above, so both messages above reach it.
/// The store's failures are also sent on `Store.errors` and thrown; logging is not how they are
/// reported while the app can still act on them.
package enum TetherLogger {
    package static let bindingLabel = "tether.binding"
    package static let storeLabel = "tether.store"

    /// Replaces the handler of every Tether logger made in the current task (or, outside a task,
    /// on the current thread): how tests capture what is logged without bootstrapping the
    /// process-wide logging system, which can be done once per process only.
    @TaskLocal package static var handlerFactory: (@Sendable (_ label: String) -> any LogHandler)?

    /// A logger for `label`: the task's `handlerFactory` if set, else the logging system's.
    package static func logger(_ label: String) -> Logger {
        if let factory = handlerFactory { return Logger(label: label, factory: factory) }
        return Logger(label: label)
    }
}
