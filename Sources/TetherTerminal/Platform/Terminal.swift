// The only file of TetherTerminal that talks to the operating system: termios (raw mode),
// ioctl (window size), signal handlers, and reading and writing the terminal's file
// descriptors. Everything else in the module is pure and unit-tested without a terminal.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// Why the terminal could not be set up.
public enum TerminalError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The input is not a terminal (for example, standard input is a pipe or a file).
    case notATerminal(fileDescriptor: Int32)
    /// Another `Terminal` is active in this process; only one can be at a time.
    case alreadyActive
    /// A system call failed.
    case systemCall(String, errno: Int32)

    /// A readable explanation.
    public var description: String {
        switch self {
        case .notATerminal(let fd): return "file descriptor \(fd) is not a terminal (run the program in a terminal, not with redirected input)"
        case .alreadyActive: return "another Terminal is already active in this process"
        case .systemCall(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// The terminal the program runs in: raw mode, the alternate screen, the window size, and
/// the byte streams. Use one at a time.
///
/// `start()` saves the terminal's settings and switches to raw mode (no echo, no line
/// editing, no signals from keys: Ctrl-C arrives as a key so the app can quit cleanly), the
/// alternate screen, and a hidden cursor. The terminal is **always restored**:
///
/// - by `stop()` (and by `run`, which stops what it started, also when it throws);
/// - when the process calls `exit()` (an `atexit` hook);
/// - on SIGTERM, SIGINT, SIGHUP and SIGQUIT: a signal handler restores the saved settings
///   and leaves the alternate screen with async-signal-safe calls only (`tcsetattr` and one
///   `write` of precomputed bytes), then re-raises the signal with its previous disposition,
///   so the process ends as it would have. SIGQUIT is re-raised with the default action: the
///   process ends, as for SIGTERM (the Swift runtime's handler would print a crash report and
///   keep the process running);
/// - on crash signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP: a Swift runtime
///   trap is SIGILL or SIGTRAP), the same, before the previous handler (the Swift backtracer,
///   or the default action) runs. Should the process live on after such a signal (a handler
///   that returns, as the Swift backtracer does for a SIGSEGV sent with `kill`), `run` switches
///   raw mode and the alternate screen back on and redraws;
/// - on SIGTSTP (`kill -TSTP`, or `suspend()`, which `run` calls for Ctrl-Z), restored before
///   the process stops, and raw mode and the alternate screen come back on SIGCONT (`fg`), with
///   a full redraw.
///
/// SIGWINCH (a window resize) is turned into a `.resize` event by `run`.
///
/// ```swift
/// let terminal = Terminal()
/// try await terminal.run { size in
///     var screen = Screen(size: size)
///     screen.put("Press q to quit", at: Position(x: 0, y: 0))
///     return screen
/// } handle: { event in
///     event == .key(.character("q")) ? .quit : .continue
/// }
/// ```
public final class Terminal: Sendable {
    /// The file descriptor keys are read from.
    public let input: Int32
    /// The file descriptor frames are written to.
    public let output: Int32

    private struct State: Sendable {
        var isActive = false
        var loop: _EventLoop?
    }
    private let state = _Locked(State())

    /// A terminal on the given file descriptors (standard input and output by default).
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
    }

    /// Whether the terminal is in raw mode (between `start()` and `stop()`).
    public var isActive: Bool { state.withLock { $0.isActive } }

    /// Saves the terminal's settings, switches to raw mode, the alternate screen (unless
    /// `alternateScreen` is false) and a hidden cursor, and installs the signal handlers that
    /// restore the terminal (see the type's documentation).
    ///
    /// ```swift
    /// try terminal.start()
    /// defer { terminal.stop() }
    /// ```
    public func start(alternateScreen: Bool = true) throws {
        guard isatty(input) == 1 else { throw TerminalError.notATerminal(fileDescriptor: input) }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { throw TerminalError.systemCall("tcgetattr", errno: errno) }
        try state.withLock { state in
            guard !state.isActive else { throw TerminalError.alreadyActive }
            try _SignalRestore.activate(
                input: input,
                output: output,
                saved: saved,
                raw: Self.rawMode(from: saved),
                enter: (alternateScreen ? ANSI.enterAlternateScreen : "") + ANSI.hideCursor + ANSI.enableBracketedPaste,
                leave: ANSI.disableBracketedPaste + ANSI.resetStyle + ANSI.showCursor + (alternateScreen ? ANSI.leaveAlternateScreen : "\r\n")
            )
            state.isActive = true
        }
    }

    /// Suspends the process as Ctrl-Z does in a shell (raw mode turns that key into a
    /// character): the terminal is restored, the process stops, and `fg` (SIGCONT) brings raw
    /// mode, the alternate screen and a full redraw back. Does nothing if the terminal is not
    /// active.
    ///
    /// ```swift
    /// if key == .control("z") { terminal.suspend() }
    /// ```
    public func suspend() {
        guard isActive else { return }
        kill(getpid(), SIGTSTP)
    }

    /// Restores the terminal as it was before `start()`: settings, normal screen, visible
    /// cursor; removes the signal handlers. Does nothing if the terminal is not active.
    public func stop() {
        let wasActive = state.withLock { state in
            defer { state.isActive = false }
            return state.isActive
        }
        if wasActive { _SignalRestore.deactivate() }
    }

    /// The window size (`ioctl(TIOCGWINSZ)`); 80x24 if the terminal does not say.
    public var size: Size {
        var window = winsize()
        for fd in [output, input] where ioctl(fd, UInt(TIOCGWINSZ), &window) == 0 && window.ws_col > 0 && window.ws_row > 0 {
            return Size(width: Int(window.ws_col), height: Int(window.ws_row))
        }
        return Size(width: 80, height: 24)
    }

    /// Writes `text` to the terminal (all of it, retrying after interruptions).
    ///
    /// ```swift
    /// terminal.write(renderer.render(screen))
    /// ```
    public func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _writeAll(output, bytes.baseAddress, bytes.count) }
    }

    /// The termios settings for raw mode: no echo, no canonical (line) mode, no signals from
    /// keys (ISIG off: Ctrl-C is a key), no extended input processing, no CR-to-NL or flow
    /// control, no output post-processing; reads return as soon as one byte is available.
    static func rawMode(from saved: termios) -> termios {
        var raw = saved
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return raw
    }

    // MARK: Event loop support (used by `run`, in Runtime/Run.swift)

    /// Registers the running loop, so that `setNeedsDisplay()` can reach it.
    func setLoop(_ loop: _EventLoop?) {
        state.withLock { $0.loop = loop }
    }

    var loop: _EventLoop? { state.withLock { $0.loop } }

    /// Reads what is available on `input` (at most 4096 bytes). Returns nil at the end of
    /// input (the terminal hung up) or on an error other than an interruption.
    func readAvailable() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count > 0 { return Array(buffer[0..<count]) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { return [] }
            return nil
        }
    }

    /// A dispatch source that fires on `queue` when `input` has bytes to read.
    func makeInputSource(queue: DispatchQueue) -> any DispatchSourceRead {
        DispatchSource.makeReadSource(fileDescriptor: input, queue: queue)
    }

    /// A dispatch source that fires on `queue` after SIGWINCH (or SIGCONT, which needs a full
    /// redraw too), through the self-pipe the signal handlers write to; nil if not active.
    func makeResizeSource(queue: DispatchQueue) -> (any DispatchSourceRead)? {
        let fd = _SignalRestore.resizePipeReadEnd
        guard fd >= 0 else { return nil }
        return DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    }

    /// Switches raw mode back on if a signal restored the terminal but the process lived on
    /// (see `_SignalRestore.recoverIfRestoredBySignal`). Returns whether it did.
    func recoverIfRestoredBySignal() -> Bool {
        state.withLock { state in state.isActive && _SignalRestore.recoverIfRestoredBySignal() }
    }

    /// Empties the resize self-pipe (its bytes only say "something happened").
    func drainResizePipe() {
        let fd = _SignalRestore.resizePipeReadEnd
        guard fd >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }
}

/// Writes every byte, retrying after EINTR; gives up on other errors (a closed terminal).
/// Async-signal-safe.
private func _writeAll(_ fd: Int32, _ bytes: UnsafePointer<UInt8>?, _ count: Int) {
    guard var pointer = bytes else { return }
    var remaining = count
    while remaining > 0 {
        let written = write(fd, pointer, remaining)
        if written > 0 {
            pointer += written
            remaining -= written
        } else if written < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}

// MARK: - Restoring the terminal from signal handlers

/// Everything a signal handler needs to restore the terminal, in memory allocated once and
/// never freed, so a handler never allocates, locks, or follows a reference count. Only
/// trivial fields (file descriptors, `termios`, raw pointers).
private struct _SignalContext {
    var input: Int32 = -1
    var output: Int32 = -1
    var resizeRead: Int32 = -1
    var resizeWrite: Int32 = -1
    var saved = termios()
    var raw = termios()
    var enter: UnsafeMutablePointer<UInt8>
    var enterCount = 0
    var leave: UnsafeMutablePointer<UInt8>
    var leaveCount = 0
    /// The dispositions the handlers replaced, indexed by signal number.
    var previous: UnsafeMutablePointer<sigaction>
}

/// The signals handled, and how.
private enum _Handled {
    /// The process ends: restore, then re-raise with the previous disposition.
    static let terminating: [Int32] = [SIGTERM, SIGINT, SIGHUP, SIGQUIT]
    /// Crashes: restore, then let the previous handler or the default action run.
    static let crashing: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]
    static let all = terminating + crashing + [SIGTSTP, SIGCONT, SIGWINCH]
}

/// Capacity of each precomputed escape-sequence buffer.
private let _sequenceCapacity = 128
/// Entries of the saved-dispositions table.
private let _signalTableSize = 128

/// The address of the context, allocated once (a global `let` is initialised once, safely).
private let _contextAddress: Int = {
    let context = UnsafeMutablePointer<_SignalContext>.allocate(capacity: 1)
    let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: _signalTableSize)
    previous.initialize(repeating: sigaction(), count: _signalTableSize)
    context.initialize(to: _SignalContext(
        enter: .allocate(capacity: _sequenceCapacity),
        leave: .allocate(capacity: _sequenceCapacity),
        previous: previous
    ))
    return Int(bitPattern: context)
}()

/// Whether a terminal is active: handlers do nothing when this is false. Lock-free, so
/// reading it in a signal handler is safe.
private let _isActive = Atomic<Bool>(false)

/// Whether the `atexit` hook is installed.
private let _exitHookInstalled = Atomic<Bool>(false)

private var _context: UnsafeMutablePointer<_SignalContext> {
    UnsafeMutablePointer<_SignalContext>(bitPattern: _contextAddress).unsafelyUnwrapped
}

/// Async-signal-safe: leaves the alternate screen (written while output processing is still
/// off, so the bytes go out as they are) and sets the saved settings back.
private func _restoreTerminal() {
    let context = _context
    _writeAll(context.pointee.output, context.pointee.leave, context.pointee.leaveCount)
    var saved = context.pointee.saved
    _ = tcsetattr(context.pointee.input, TCSANOW, &saved)
}

/// Async-signal-safe: raw mode and the alternate screen again (after SIGCONT).
private func _reenterRawMode() {
    let context = _context
    var raw = context.pointee.raw
    _ = tcsetattr(context.pointee.input, TCSANOW, &raw)
    _writeAll(context.pointee.output, context.pointee.enter, context.pointee.enterCount)
}

/// Async-signal-safe: wakes the event loop through the self-pipe.
private func _pokeResizePipe() {
    var byte: UInt8 = 1
    _ = write(_context.pointee.resizeWrite, &byte, 1)
}

/// Puts back the disposition a handler replaced. Async-signal-safe (`sigaction` is).
private func _restorePreviousDisposition(_ signal: Int32) {
    _ = sigaction(signal, _context.pointee.previous + Int(signal), nil)
}

/// Faults re-occur when the handler returns (the instruction runs again), unless the signal
/// was sent by a process. A plain comparison: no array (no reference counting) in a handler.
private func _isFault(_ signal: Int32) -> Bool {
    signal == SIGSEGV || signal == SIGBUS || signal == SIGILL || signal == SIGFPE
}

private let _terminatingHandler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = { signal, info, _ in
    let savedErrno = errno
    if _isActive.exchange(false, ordering: .acquiringAndReleasing) {
        _restoreTerminal()
        // Wakes the event loop: if the process survives the signal, it switches back on.
        _pokeResizePipe()
    }
    if signal == SIGQUIT {
        // Ends the process like SIGTERM: not the Swift runtime's crash report over the screen.
        var action = sigaction()
        _setHandler(&action, nil)
        _ = sigaction(SIGQUIT, &action, nil)
    } else {
        _restorePreviousDisposition(signal)
    }
    // A fault raised by the CPU happens again when the handler returns, now with the previous
    // disposition; anything else (a signal sent by a process, abort(), a trap) is raised again.
    // The signal is blocked while the handler runs, so it is delivered right after it returns.
    let sentByProcess = (info?.pointee.si_code ?? 0) <= 0
    if !_isFault(signal) || sentByProcess {
        raise(signal)
    }
    errno = savedErrno
}

private let _suspendHandler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = { signal, _, _ in
    let savedErrno = errno
    if _isActive.load(ordering: .acquiring) { _restoreTerminal() }
    // Stop with the default action; SIGCONT installs this handler again.
    var action = sigaction()
    _setHandler(&action, nil)
    _ = sigaction(SIGTSTP, &action, nil)
    raise(SIGTSTP)
    errno = savedErrno
}

private let _continueHandler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = { _, _, _ in
    let savedErrno = errno
    if _isActive.load(ordering: .acquiring) {
        var action = _action(_suspendHandler)
        _ = sigaction(SIGTSTP, &action, nil)
        _reenterRawMode()
        _pokeResizePipe()  // the screen must be redrawn
    }
    errno = savedErrno
}

private let _resizeHandler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = { _, _, _ in
    let savedErrno = errno
    if _isActive.load(ordering: .acquiring) { _pokeResizePipe() }
    errno = savedErrno
}

private let _exitHook: @convention(c) () -> Void = {
    if _isActive.exchange(false, ordering: .acquiringAndReleasing) { _restoreTerminal() }
}

private func _setHandler(
    _ action: inout sigaction,
    _ handler: (@convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void)?
) {
    #if os(Linux)
    if let handler {
        action.__sigaction_handler.sa_sigaction = handler
    } else {
        action.__sigaction_handler.sa_handler = SIG_DFL
    }
    #else
    if let handler {
        action.__sigaction_u.__sa_sigaction = handler
    } else {
        action.__sigaction_u.__sa_handler = SIG_DFL
    }
    #endif
}

private func _action(
    _ handler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void,
    restart: Bool = false
) -> sigaction {
    var action = sigaction()
    _setHandler(&action, handler)
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | (restart ? SA_RESTART : 0)
    return action
}

/// Installs and removes the handlers. Called with `Terminal`'s lock held, so activations
/// never overlap within one `Terminal`; `_isActive` guards against two terminals.
enum _SignalRestore {
    /// The read end of the self-pipe SIGWINCH and SIGCONT write to, or -1.
    static var resizePipeReadEnd: Int32 { _context.pointee.resizeRead }

    static func activate(input: Int32, output: Int32, saved: termios, raw: termios, enter: String, leave: String) throws {
        let context = _context
        guard !_isActive.load(ordering: .acquiring) else { throw TerminalError.alreadyActive }

        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw TerminalError.systemCall("pipe", errno: errno) }
        for fd in pipeEnds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }

        context.pointee.input = input
        context.pointee.output = output
        context.pointee.resizeRead = pipeEnds[0]
        context.pointee.resizeWrite = pipeEnds[1]
        context.pointee.saved = saved
        context.pointee.raw = raw
        context.pointee.enterCount = copy(enter, to: context.pointee.enter)
        context.pointee.leaveCount = copy(leave, to: context.pointee.leave)

        // An alternate signal stack, so a crash from a stack overflow can still restore.
        installAlternateStackIfNeeded()

        // Handlers first (they do nothing until `_isActive`), then raw mode.
        installHandlers(savingPrevious: true)

        if !_exitHookInstalled.exchange(true, ordering: .acquiringAndReleasing) {
            atexit(_exitHook)
        }

        // TCSANOW: keys typed before the app started are kept, and nothing waits for output
        // to drain.
        var rawSettings = raw
        guard tcsetattr(input, TCSANOW, &rawSettings) == 0 else {
            let code = errno
            uninstall()
            throw TerminalError.systemCall("tcsetattr", errno: code)
        }
        _isActive.store(true, ordering: .releasing)
        _writeAll(output, context.pointee.enter, context.pointee.enterCount)
    }

    /// Installs the handlers. The first time, the dispositions they replace are saved; when
    /// reinstalling (after a signal the process survived), the saved ones are kept.
    private static func installHandlers(savingPrevious: Bool) {
        let previous = _context.pointee.previous
        func install(_ signal: Int32, _ action: sigaction) {
            var action = action
            _ = sigaction(signal, &action, savingPrevious ? previous + Int(signal) : nil)
        }
        for signal in _Handled.terminating + _Handled.crashing {
            install(signal, _action(_terminatingHandler))
        }
        install(SIGTSTP, _action(_suspendHandler))
        install(SIGCONT, _action(_continueHandler, restart: true))
        install(SIGWINCH, _action(_resizeHandler, restart: true))
        // A terminating signal that was ignored before (`nohup`) stays ignored.
        for signal in _Handled.terminating where isIgnored(previous[Int(signal)]) {
            _ = sigaction(signal, previous + Int(signal), nil)
        }
    }

    /// After a signal restored the terminal but the process lived on (its previous handler
    /// returned: the Swift backtracer does so for a SIGSEGV sent with `kill`), switches raw
    /// mode, the alternate screen and the handlers back on. Returns whether it did.
    static func recoverIfRestoredBySignal() -> Bool {
        let context = _context
        guard !_isActive.load(ordering: .acquiring), context.pointee.resizeRead >= 0 else { return false }
        installHandlers(savingPrevious: false)
        var raw = context.pointee.raw
        guard tcsetattr(context.pointee.input, TCSANOW, &raw) == 0 else { return false }
        _isActive.store(true, ordering: .releasing)
        _writeAll(context.pointee.output, context.pointee.enter, context.pointee.enterCount)
        return true
    }

    static func deactivate() {
        // Whoever flips the flag restores: this call, or a signal handler that got there first.
        if _isActive.exchange(false, ordering: .acquiringAndReleasing) {
            _restoreTerminal()
        }
        uninstall()
    }

    /// The restore a signal handler performs, without the signal: for tests.
    static func restoreAsSignalHandlerWould() {
        if _isActive.exchange(false, ordering: .acquiringAndReleasing) { _restoreTerminal() }
    }

    private static func uninstall() {
        let context = _context
        for signal in _Handled.all {
            _ = sigaction(signal, context.pointee.previous + Int(signal), nil)
        }
        if context.pointee.resizeRead >= 0 { close(context.pointee.resizeRead) }
        if context.pointee.resizeWrite >= 0 { close(context.pointee.resizeWrite) }
        context.pointee.resizeRead = -1
        context.pointee.resizeWrite = -1
    }

    private static func isIgnored(_ action: sigaction) -> Bool {
        #if os(Linux)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1  // SIG_IGN
        #else
        return unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self) == 1
        #endif
    }

    private static func copy(_ text: String, to buffer: UnsafeMutablePointer<UInt8>) -> Int {
        let bytes = Array(text.utf8.prefix(_sequenceCapacity))
        buffer.update(from: bytes, count: bytes.count)
        return bytes.count
    }

    private static func installAlternateStackIfNeeded() {
        var current = stack_t()
        guard sigaltstack(nil, &current) == 0, current.ss_flags & Int32(SS_DISABLE) != 0 else { return }
        let size = 64 * 1024
        var stack = stack_t()
        stack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)  // kept for the thread's life
        stack.ss_size = size
        stack.ss_flags = 0
        _ = sigaltstack(&stack, nil)
    }
}
