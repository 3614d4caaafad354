import Dispatch
import InMemoryLogging
import Logging
import Synchronization
import Testing
import Tether
import TetherTestSupport

/// Captures what Tether logs in the current task (or thread), by label, without bootstrapping the
/// process-wide logging system.
final class CapturedLogs: Sendable {
    let handler = InMemoryLogHandler()
    private let labels = Mutex<[String]>([])
    var labelsSeen: [String] { labels.withLock { $0 } }

    func capture<R>(_ body: () throws -> R) rethrows -> R {
        try TetherLogger.$handlerFactory.withValue({ [self] label in
            labels.withLock { $0.append(label) }
            var handler = self.handler
            handler.logLevel = .trace
            return handler
        }, operation: body)
    }
}

@Suite("Binding diagnostics are logged")
struct BindingLoggingTests {
    @Test func aValueFromAnotherThreadIsLoggedAsAWarningOnTetherBinding() {
        let invoice = HandInvoice()
        let source = Subject<Int, Never>()
        let reported = Recorder<String, Never>()
        let diagnostics = BindingDiagnostics.errors.subscribe(next: { reported.append(.next($0.description)) })
        defer { diagnostics.dispose() }
        let binding = bind(source.signal, to: invoice, \.quantity)
        let logs = CapturedLogs()
        let done = DispatchSemaphore(value: 0)
        // The refusal is reported on the thread that sent the value.
        Thread_detach { logs.capture { source.sendNext(42) }; done.signal() }
        done.wait()

        let error = BindingError.wrongThread(model: "HandInvoice", property: "quantity")
        #expect(invoice.quantity == 1, "refused")
        #expect(binding.isDisposed)
        #expect(logs.labelsSeen == ["tether.binding"])
        #expect(logs.handler.entries == [.init(level: .warning, message: "\(error.description)", metadata: [:])])
        #expect(reported.values.contains(error.description), "still sent on BindingDiagnostics.errors")
    }

    @Test func aFailedSignalWithoutOnErrorIsLoggedOnce() {
        let invoice = HandInvoice()
        let source = Subject<Int, TestError>()
        let logs = CapturedLogs()
        logs.capture {
            bind(source.signal, to: invoice, \.quantity)
            source.sendNext(3)
            source.sendError(.boom)
            source.sendError(.boom)                 // the binding has ended: nothing more
        }
        #expect(invoice.quantity == 3)
        #expect(logs.labelsSeen == ["tether.binding"])
        #expect(logs.handler.entries.map(\.level) == [.warning])
        #expect(logs.handler.entries.first?.message.description.contains("HandInvoice.quantity ended: the signal failed") == true)
    }

    @Test func aBindingWithOnErrorLogsNothing() {
        let invoice = HandInvoice()
        let source = Subject<Int, TestError>()
        let logs = CapturedLogs()
        let reported = Recorder<String, Never>()
        logs.capture {
            bind(source.signal, to: invoice, \.quantity, onError: { reported.append(.next($0.description)) })
            source.sendError(.boom)
        }
        #expect(reported.values.count == 1)
        #expect(logs.handler.entries.isEmpty)
        #expect(logs.labelsSeen.isEmpty)
    }
}
