import Foundation
import Synchronization
import Testing

/// A shell in a pane of a private tmux server (its own socket: `tmux -L tether-e2e-PID-N`,
/// no configuration file), 120x40, for driving the real `invoices` binary. `close()` kills the
/// server; so does `deinit`, if a test ends early.
final class TmuxPane {
    /// The shell's prompt, set so that the tests can tell when a command has ended.
    static let prompt = "e2e$"
    private static let sessions = Atomic<Int>(0)

    let socket: String
    /// A fresh directory for the test's database, removed with the pane.
    let directory: String
    /// The database the app is started with: in `directory`, unless another pane's was given.
    let database: String
    /// The server's process and socket file, for `close()`.
    private var server: (pid: Int32, socket: String)?
    private var isClosed = false

    /// A new server with a shell; the app will use `database` (another pane's, for two copies
    /// of the app on one file), or a fresh file.
    init(database: String? = nil) throws {
        let number = Self.sessions.add(1, ordering: .relaxed).newValue
        socket = "tether-e2e-\(getpid())-\(number)"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-e2e-\(UUID().uuidString)").path
        self.database = database ?? directory + "/invoices.sqlite"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try run(["new-session", "-d", "-x", "120", "-y", "40", "-s", "e2e", "env PS1='\(Self.prompt) ' /bin/sh"], quiet: true)
        if let pid = Int32(try paneValue("#{pid}")) { server = (pid, try paneValue("#{socket_path}")) }
        _ = try waitFor("the shell's prompt") { $0.contains(Self.prompt) }
    }

    deinit {
        close()
    }

    /// Kills the tmux server (and with it the shell and anything still running in it) and
    /// removes the directory.
    ///
    /// `kill-server` makes the server send itself SIGTERM. Should the server still be there
    /// after a second, it gets SIGKILL (its pane's shell and app then get SIGHUP), and its
    /// socket file is removed: a test never leaves a server behind.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = try? run(["kill-server"], quiet: true)
        if let server {
            let deadline = ContinuousClock.now + .seconds(1)
            while kill(server.pid, 0) == 0, ContinuousClock.now < deadline { usleep(20_000) }
            if kill(server.pid, 0) == 0 {
                kill(server.pid, SIGKILL)
                try? FileManager.default.removeItem(atPath: server.socket)
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The `invoices` executable built next to the tests.
    static var binary: String {
        let directory = Bundle.main.bundleURL.deletingLastPathComponent()
        var executable = directory.appendingPathComponent("invoices")
        if !FileManager.default.fileExists(atPath: executable.path) {
            executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("invoices")
        }
        return executable.path
    }

    /// Starts the app in the pane on the test's database and waits for its first screen.
    func launch() throws {
        // The log goes to the test's directory, not the user's ~/.local/state.
        try line("XDG_STATE_HOME='\(directory)/state' '\(Self.binary)' --database '\(database)'")
        _ = try waitFor("the form") { $0.contains("Invoice #") || $0.contains("No invoice.") }
    }

    /// Two copies of the app on one fresh file, each in a pane of its own, both showing their
    /// first screen. (A pane not returned, because the other failed to start, closes as it is
    /// freed.)
    static func twoCopies() throws -> (TmuxPane, TmuxPane) {
        let first = try TmuxPane()
        let second = try TmuxPane(database: first.database)
        try first.launch()
        try second.launch()
        return (first, second)
    }

    /// Types a command line into the shell, then Enter.
    func line(_ text: String) throws {
        try type(text)
        try keys("Enter")
    }

    /// Sends keys by tmux name: `Tab`, `BTab` (Shift-Tab), `BSpace`, `Escape`, `C-c`...
    func keys(_ names: String...) throws {
        try run(["send-keys", "-t", "e2e"] + names)
    }

    /// Sends text as typed (UTF-8, Chinese included).
    func type(_ text: String) throws {
        try run(["send-keys", "-t", "e2e", "-l", text])
    }

    /// Pastes `text` as a terminal paste does (tmux `paste-buffer -p`: bracketed, when the
    /// program asked for it), Tabs and newlines included.
    func paste(_ text: String) throws {
        try run(["set-buffer", "-b", "e2e-paste", "--", text])
        try run(["paste-buffer", "-p", "-d", "-b", "e2e-paste", "-t", "e2e"])
    }

    /// Resizes the window (the app gets SIGWINCH), as a person dragging its corner does.
    func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-t", "e2e", "-x", "\(width)", "-y", "\(height)"])
    }

    /// What the pane shows now (the alternate screen while the app runs).
    func capture() throws -> String {
        try run(["capture-pane", "-p", "-t", "e2e"])
    }

    /// A tmux format value for the pane, such as `#{pane_pid}` or `#{pane_tty}`.
    func paneValue(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", "e2e", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Captures the pane every 50 ms until `predicate` holds, for at most `timeout`. On
    /// timeout, records an issue that shows the pane, and returns the last capture.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation,
        _ predicate: (String) -> Bool
    ) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let screen = try capture()
            if predicate(screen) { return screen }
            if ContinuousClock.now >= deadline {
                Issue.record("timed out waiting for \(what); the pane shows:\n\(screen)", sourceLocation: sourceLocation)
                return screen
            }
            usleep(50_000)
        }
    }

    /// Waits until every one of `texts` is on screen (parts of one frame can reach the pane in
    /// separate chunks, so everything a test checks is waited for).
    @discardableResult
    func waitFor(
        _ what: String, showing texts: [String], timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        try waitFor(what, timeout: timeout, sourceLocation: sourceLocation) { screen in
            texts.allSatisfy { screen.contains($0) }
        }
    }

    /// Waits until the shell's prompt is the last line shown: the app has ended and the normal
    /// screen is back.
    @discardableResult
    func waitForPrompt(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try waitFor("the shell's prompt after the app", sourceLocation: sourceLocation) { lastLine($0) == Self.prompt }
    }

    @discardableResult
    private func run(_ arguments: [String], quiet: Bool = false) throws -> String {
        let full = ["tmux", "-u", "-L", socket, "-f", "/dev/null"] + arguments
        let result = try runCommand(full, capture: !quiet)
        guard result.status == 0 else {
            throw TmuxError(arguments: arguments, status: result.status, message: result.errors)
        }
        return result.output
    }
}

struct TmuxError: Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let message: String
    var description: String {
        "tmux \(arguments.joined(separator: " ")) failed (\(status)): \(message) (is tmux installed? .ci/run installs it)"
    }
}

/// The processes whose parent is `parent` and whose name is `name` (from /proc).
func childProcesses(of parent: Int32, named name: String) -> [Int32] {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    return entries.compactMap { entry -> Int32? in
        guard let pid = Int32(entry),
              let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { return nil }
        let command = stat[stat.index(after: open)..<close]
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 1, Int32(fields[1]) == parent, command == name else { return nil }
        return pid
    }
}

/// The last line of a capture that is not blank, without surrounding spaces.
func lastLine(_ screen: String) -> String? {
    screen.split(separator: "\n").last { !$0.allSatisfy { $0 == " " } }.map { $0.trimmingCharacters(in: .whitespaces) }
}

/// The words of `stty -a` output (settings such as `icanon` or `-echo`).
func sttyWords(_ text: String) -> Set<String> {
    Set(text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
}
