#if os(Linux)
import Glibc
import Testing
@testable import TetherTerminal

/// What starting writes: the alternate screen, the cursor hidden, bracketed paste on.
private let enter = "\u{1b}[?1049h\u{1b}[?25l\u{1b}[?2004h"
/// What stopping writes: bracketed paste off, the style reset, the cursor shown, the screen back.
private let leave = "\u{1b}[?2004l\u{1b}[m\u{1b}[?25h\u{1b}[?1049l"

private func handlerAddress(_ signal: Int32) -> Int {
    var action = sigaction()
    _ = sigaction(signal, nil, &action)
    return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
}

/// The terminal layer on a pseudo-terminal: raw mode, restoring, signals, the event loop.
/// Serialized: a process has one active terminal and one set of signal handlers.
@Suite(.serialized) struct TerminalTests {
    @Test func startSwitchesToRawModeAndStopRestoresExactly() throws {
        let pty = try PseudoTerminal()
        let before = pty.settings
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        try terminal.start()
        #expect(terminal.isActive)
        let raw = pty.settings
        #expect(raw.c_lflag & tcflag_t(ECHO | ICANON | ISIG | IEXTEN) == 0)
        #expect(raw.c_iflag & tcflag_t(ICRNL | IXON) == 0)
        #expect(raw.c_oflag & tcflag_t(OPOST) == 0)
        // The alternate screen and a hidden cursor.
        #expect(pty.output() == enter)
        terminal.stop()
        #expect(!terminal.isActive)
        #expect(sameSettings(pty.settings, before))
        #expect(pty.output() == leave)
        // Stopping twice does nothing.
        terminal.stop()
        #expect(pty.output() == "")
    }

    @Test func withoutTheAlternateScreen() throws {
        let pty = try PseudoTerminal()
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        try terminal.start(alternateScreen: false)
        #expect(pty.output() == "\u{1b}[?25l\u{1b}[?2004h")
        terminal.stop()
        #expect(pty.output() == "\u{1b}[?2004l\u{1b}[m\u{1b}[?25h\r\n")
    }

    @Test func theSignalHandlersRestoreWithTheSameCallsAsStop() throws {
        let pty = try PseudoTerminal()
        let before = pty.settings
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        try terminal.start()
        _ = pty.output()
        // What a SIGTERM handler does before re-raising: the saved settings, the leave bytes.
        _SignalRestore.restoreAsSignalHandlerWould()
        #expect(sameSettings(pty.settings, before))
        #expect(pty.output() == leave)
        // stop() afterwards removes the handlers and does not write the bytes again.
        terminal.stop()
        #expect(pty.output() == "")
        #expect(sameSettings(pty.settings, before))
    }

    @Test func handlersAreInstalledWhileActiveAndThePreviousOnesPutBack() throws {
        let pty = try PseudoTerminal()
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        let signals = [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGTSTP, SIGCONT, SIGWINCH]
        let before = signals.map(handlerAddress)
        #expect(hasDefaultDisposition(SIGTERM))
        try terminal.start()
        for (signal, previous) in zip(signals, before) {
            #expect(handlerAddress(signal) != previous, "signal \(signal) has no handler")
        }
        terminal.stop()
        #expect(signals.map(handlerAddress) == before)
        #expect(hasDefaultDisposition(SIGTERM))
    }

    @Test func anIgnoredTerminatingSignalStaysIgnored() throws {
        let pty = try PseudoTerminal()
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        let previous = signal(SIGHUP, SIG_IGN)
        defer { signal(SIGHUP, previous) }
        try terminal.start()
        #expect(handlerAddress(SIGHUP) == 1)  // SIG_IGN, as under nohup
        terminal.stop()
        #expect(handlerAddress(SIGHUP) == 1)
    }

    @Test func onlyOneTerminalAtATime() throws {
        let pty = try PseudoTerminal()
        let other = try PseudoTerminal()
        let first = Terminal(input: pty.slave, output: pty.slave)
        let second = Terminal(input: other.slave, output: other.slave)
        try first.start()
        #expect(throws: TerminalError.alreadyActive) { try second.start() }
        #expect(throws: TerminalError.alreadyActive) { try first.start() }
        first.stop()
        try second.start()
        second.stop()
    }

    @Test func inputThatIsNotATerminalIsRefused() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let terminal = Terminal(input: ends[0], output: ends[1])
        #expect(throws: TerminalError.notATerminal(fileDescriptor: ends[0])) { try terminal.start() }
        #expect(!terminal.isActive)
    }

    @Test func sizeComesFromTheWindow() throws {
        let pty = try PseudoTerminal(size: Size(width: 33, height: 7))
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        #expect(terminal.size == Size(width: 33, height: 7))
        pty.resize(to: Size(width: 100, height: 40))
        #expect(terminal.size == Size(width: 100, height: 40))
    }

    // MARK: The event loop

    @MainActor @Test func runDecodesKeysRendersFramesAndRestores() async throws {
        let pty = try PseudoTerminal(size: Size(width: 12, height: 2))
        let before = pty.settings
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        var events: [TerminalEvent] = []
        var typed = ""
        var renders = 0
        try await terminal.run { size in
            // Keys are typed once raw mode is on (typed before, they would be echoed).
            renders += 1
            if renders == 1 { pty.type("a中\u{1b}[A") }
            var screen = Screen(size: size)
            screen.put("> " + typed, at: Position(x: 0, y: 0))
            screen.cursor = Position(x: 2 + DisplayWidth.of(typed), y: 0)
            return screen
        } handle: { event in
            events.append(event)
            switch event {
            case .key(.character("q")): return .quit
            case .key(.character(let c)): typed.append(c)
            case .key(.up): pty.type("q")   // arrives in a later read, after a frame
            default: break
            }
            return .continue
        }
        #expect(events == [.key(.character("a")), .key(.character("中")), .key(.up), .key(.character("q"))])
        #expect(!terminal.isActive)
        #expect(sameSettings(pty.settings, before))
        let output = pty.output()
        // Entered the alternate screen, drew the first frame in full (the prompt, the cursor
        // after it), then only the change ("a中" at the cursor, which ends after them), and
        // restored the terminal.
        let firstFrame = "\u{1b}[?25l\u{1b}[m\u{1b}[H\u{1b}[2J> \u{1b}[?25h"
        #expect(output == enter + firstFrame + "a中" + leave)
    }

    @MainActor @Test func aThrownErrorEndsRunAndRestores() async throws {
        struct Failure: Error, Equatable {}
        let pty = try PseudoTerminal()
        let before = pty.settings
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        await #expect(throws: Failure()) {
            try await terminal.run { size in
                pty.type("x")
                return Screen(size: size)
            } handle: { _ in throw Failure() }
        }
        #expect(!terminal.isActive)
        #expect(sameSettings(pty.settings, before))
        #expect(pty.output().hasSuffix(leave))
    }

    @MainActor @Test func aLoneEscapeIsDeliveredAfterTheDelay() async throws {
        let pty = try PseudoTerminal()
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        var events: [TerminalEvent] = []
        var renders = 0
        try await terminal.run(escapeDelay: .milliseconds(5)) { size in
            renders += 1
            if renders == 1 { pty.type([0x1b]) }
            return Screen(size: size)
        } handle: { event in
            events.append(event)
            return .quit
        }
        #expect(events == [.key(.escape)])
    }

    @MainActor @Test func aResizeIsDeliveredAndRedrawsInFull() async throws {
        let pty = try PseudoTerminal(size: Size(width: 10, height: 2))
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        var events: [TerminalEvent] = []
        var renders = 0
        try await terminal.run { size in
            renders += 1
            if renders == 1 { pty.type("r") }
            var screen = Screen(size: size)
            screen.put("\(size)", at: Position(x: 0, y: 0))
            return screen
        } handle: { event in
            events.append(event)
            switch event {
            case .key(.character("r")):
                // The window changes size; the kernel would send SIGWINCH to the foreground
                // process group of the terminal, which the test process is not. Sent to the
                // process (not `raise`d on this thread, which may block it), as the kernel does.
                pty.resize(to: Size(width: 14, height: 3))
                kill(getpid(), SIGWINCH)
                return .continue
            case .resize:
                pty.type("z")
                return .continue
            default:
                return .quit
            }
        }
        #expect(events == [.key(.character("r")), .resize(Size(width: 14, height: 3)), .key(.character("z"))])
        let output = pty.output()
        #expect(output.contains("\u{1b}[H\u{1b}[2J10x2"))
        #expect(output.contains("\u{1b}[H\u{1b}[2J14x3"))
    }

    @MainActor @Test func setNeedsDisplayRendersAgain() async throws {
        let pty = try PseudoTerminal(size: Size(width: 10, height: 1))
        let terminal = Terminal(input: pty.slave, output: pty.slave)
        var label = "one"
        var renders = 0
        try await terminal.run { size in
            renders += 1
            if renders == 1 { pty.type("x") }
            if renders == 3 { pty.type("q") }
            var screen = Screen(size: size)
            screen.put(label, at: Position(x: 0, y: 0))
            return screen
        } handle: { event in
            if event == .key(.character("q")) { return .quit }
            label = "two"
            // Something other than a key changes what is shown: ask for a frame, twice.
            terminal.setNeedsDisplay()
            terminal.setNeedsDisplay()
            return .continue
        }
        // The first frame, the frame after "x", one frame for both requests, none after q.
        #expect(renders == 3)
        #expect(pty.output().contains("one\u{1b}[1Htwo"))
    }
}
#endif
