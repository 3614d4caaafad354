import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// Where the invoice app's log messages go (`main.swift` bootstraps swift-log with `handler`):
/// a log file a user can find, in the format of swift-log's default handler, so that nothing is
/// ever written over the form (the terminal is in raw mode on the alternate screen), and
/// retries at exit do not fill the terminal.
///
/// The file is `$XDG_STATE_HOME/tether/invoices.log`, or `~/.local/state/tether/invoices.log`
/// without `XDG_STATE_HOME` (`defaultPath(environment:)`); it is appended to. Once the form has
/// closed, `summary()` says in one line how many messages this run logged, where, and the last
/// one, for `main.swift` to print.
///
/// Without a file (it cannot be opened, or no `HOME`), lines go to standard error, held while
/// the form owns the terminal and written, in order, by `release()`, once it is restored.
///
/// ```swift
/// let log = LogOutput(path: LogOutput.defaultPath(environment: environment))
/// LoggingSystem.bootstrap(log.handler)
/// log.hold()
/// try await terminal.run(render: app.render, handle: app.handle)
/// log.release()
/// if let summary = log.summary() { print(summary) }   // "2 messages were logged to …"
/// ```
public final class LogOutput: Sendable {
    private struct State {
        var holding = false
        var held: [String] = []
        /// Lines this run wrote to the file, and the last one.
        var logged = 0
        var last: String?
    }

    private let state = Mutex(State())
    private let holds: Bool
    private let write: @Sendable (String) -> Void
    /// The log file, or nil when lines go to standard error.
    public let path: String?

    /// Lines go to the file at `path` (it and its folder are made at the first line), or to
    /// standard error when `path` is nil or the file cannot be written.
    ///
    /// - Parameters:
    ///   - holds: whether `hold()` holds lines for standard error back; by default, when
    ///     standard error is a terminal (the one the form is drawn on).
    ///   - write: writes a line to standard error (tests pass their own).
    public init(
        path: String?,
        holds: Bool = isatty(STDERR_FILENO) == 1,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.path = path
        self.holds = holds
        self.write = write
    }

    /// The log file for `environment`: `$XDG_STATE_HOME/tether/invoices.log` (an absolute
    /// `XDG_STATE_HOME`), else `~/.local/state/tether/invoices.log`; nil without either.
    ///
    /// ```swift
    /// LogOutput.defaultPath(environment: ["HOME": "/home/ada"])
    /// // "/home/ada/.local/state/tether/invoices.log"
    /// ```
    public static func defaultPath(environment: [String: String]) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return (state.hasSuffix("/") ? state : state + "/") + "tether/invoices.log"
        }
        if let home = environment["HOME"], !home.isEmpty {
            return (home.hasSuffix("/") ? home : home + "/") + ".local/state/tether/invoices.log"
        }
        return nil
    }

    /// Appends `line` to the file at `path`, making it (and its folder) if need be.
    private static func append(_ line: String, to path: String) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }

    /// A swift-log handler for `label` that writes here (for `LoggingSystem.bootstrap`).
    public func handler(label: String) -> any LogHandler {
        StreamLogHandler(label: label, stream: _Stream(output: self))
    }

    /// From now on, lines for standard error are held until `release()` (if it is a terminal).
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

    /// One line about what this run logged to the file, or nil if nothing was (lines that went
    /// to standard error are there already):
    /// `3 messages were logged to /home/ada/.local/state/tether/invoices.log; the last: …`.
    public func summary() -> String? {
        guard let path else { return nil }
        return state.withLock { state -> String? in
            guard state.logged > 0, let last = state.last else { return nil }
            let count = state.logged == 1 ? "1 message was" : "\(state.logged) messages were"
            return "\(count) logged to \(path); the last: \(last)"
        }
    }

    fileprivate func append(_ line: String) {
        // Under the lock, so a line never overtakes the held ones `release()` is writing.
        state.withLock { state in
            if let path, Self.append(line, to: path) {
                state.logged += 1
                state.last = Self.message(of: line)
            } else if state.holding {
                state.held.append(line)
            } else {
                write(line)
            }
        }
    }

    /// The line without its timestamp and trailing newline.
    private static func message(of line: String) -> String {
        var text = line.hasSuffix("\n") ? String(line.dropLast()) : line
        if let space = text.firstIndex(of: " "), text.first?.isNumber == true { text = String(text[text.index(after: space)...]) }
        return text
    }

    private struct _Stream: TextOutputStream, Sendable {
        let output: LogOutput
        mutating func write(_ string: String) { output.append(string) }
    }
}
