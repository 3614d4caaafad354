import Foundation
import Logging
import Synchronization

/// Where the invoice app's log messages go (`main.swift` bootstraps swift-log with `handler`):
/// standard error, in the format of swift-log's default handler, except while the form owns
/// the terminal. A line written then would land in the middle of the form (the terminal is in
/// raw mode on the alternate screen), so it is held, and written, in order, by `release()`,
/// which the app calls once the terminal is restored.
///
/// Nothing is held when standard error is not a terminal (`swift run invoices 2>invoices.log`):
/// the lines are written as they come and cannot disturb the screen. A process killed by a
/// signal while the form is up loses the lines held so far; redirect standard error to keep
/// them.
///
/// ```swift
/// let logOutput = HeldStandardError()
/// LoggingSystem.bootstrap(logOutput.handler)
/// logOutput.hold()
/// try await terminal.run(render: app.render, handle: app.handle)
/// logOutput.release()          // the terminal is restored: held lines are written now
/// ```
public final class HeldStandardError: Sendable {
    private struct State {
        var holding = false
        var held: [String] = []
    }

    private let state = Mutex(State())
    private let holds: Bool
    private let write: @Sendable (String) -> Void

    /// - Parameters:
    ///   - holds: whether `hold()` holds lines back; by default, when standard error is a
    ///     terminal (the one the form is drawn on).
    ///   - write: writes a line (standard error by default; tests pass their own).
    public init(
        holds: Bool = isatty(STDERR_FILENO) == 1,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.holds = holds
        self.write = write
    }

    /// A swift-log handler for `label` that writes here (for `LoggingSystem.bootstrap`).
    public func handler(label: String) -> any LogHandler {
        StreamLogHandler(label: label, stream: _Stream(output: self))
    }

    /// From now on, lines are held until `release()` (if standard error is a terminal).
    public func hold() {
        guard holds else { return }
        state.withLock { $0.holding = true }
    }

    /// Writes the held lines, in order, and stops holding.
    public func release() {
        state.withLock { state in
            state.holding = false
            for line in state.held { write(line) }
            state.held = []
        }
    }

    /// How many lines are held (for tests).
    public var heldCount: Int { state.withLock { $0.held.count } }

    fileprivate func append(_ line: String) {
        // Under the lock, so a line never overtakes the held ones `release()` is writing.
        state.withLock { state in
            if state.holding { state.held.append(line) } else { write(line) }
        }
    }

    private struct _Stream: TextOutputStream, Sendable {
        let output: HeldStandardError
        mutating func write(_ string: String) { output.append(string) }
    }
}
