import Dispatch
import Synchronization

/// Something that happened at the terminal, delivered to the app by `Terminal.run`.
public enum TerminalEvent: Hashable, Sendable {
    /// A key was pressed.
    case key(Key)
    /// The window changed size; the next frame is drawn in full at the new size.
    case resize(Size)
    /// The input ended (the terminal hung up). No more keys will arrive.
    case inputClosed
}

/// What the app wants after an event.
public enum TerminalAction: Hashable, Sendable {
    /// Keep running: the screen is rendered again.
    case `continue`
    /// Stop `run`.
    case quit
}

extension Terminal {
    /// Runs the app until `handle` returns `.quit` (or throws): reads keys without blocking
    /// the main queue, decodes them, calls `handle` for each event, then renders a frame with
    /// `render` and writes only what changed.
    ///
    /// If the terminal is not active, `run` starts it and stops it when it returns, also when
    /// `handle` throws (the error is rethrown after the terminal is restored).
    ///
    /// Everything runs on the main actor (the main queue): models created on the main thread
    /// can be read and edited from `render` and `handle`. A lone Escape is delivered after
    /// `escapeDelay` without further input (it also starts every escape sequence). Call
    /// `setNeedsDisplay()` when something other than a key changes what is shown.
    ///
    /// `suspendKey` (Ctrl-Z unless nil) suspends the process as in any terminal program
    /// (`suspend()`); `fg` brings the app back, redrawn. It does not reach `handle`;
    /// `willSuspend` runs first (to write what the app holds: a stopped process may never be
    /// continued, and a terminal closed meanwhile ends it).
    ///
    /// ```swift
    /// try await terminal.run { size in
    ///     var screen = Screen(size: size)
    ///     form.render(into: &screen, in: screen.bounds)
    ///     return screen
    /// } handle: { event in
    ///     guard case .key(let key) = event else { return .continue }
    ///     if key == .control("c") { return .quit }
    ///     _ = form.handle(key)
    ///     return .continue
    /// }
    /// ```
    @MainActor
    public func run(
        escapeDelay: Duration = .milliseconds(50),
        suspendKey: Key? = .control("z"),
        willSuspend: (@MainActor () -> Void)? = nil,
        render: @escaping @MainActor (Size) -> Screen,
        handle: @escaping @MainActor (TerminalEvent) throws -> TerminalAction
    ) async throws {
        let startedHere = !isActive
        if startedHere { try start() }
        defer { if startedHere { stop() } }
        let loop = _EventLoop(
            terminal: self, escapeDelay: escapeDelay, suspendKey: suspendKey, willSuspend: willSuspend,
            render: render, handle: handle)
        setLoop(loop)
        defer { setLoop(nil) }
        try await loop.run()
    }

    /// Asks `run` to render a frame soon (once, however many times it is called before that).
    /// Call it from any thread when the state shown changed without a key: a model updated by
    /// another process, a timer.
    ///
    /// ```swift
    /// changes(of: invoice).subscribe(next: { _ in terminal.setNeedsDisplay() })
    /// ```
    public func setNeedsDisplay() {
        guard let loop else { return }
        guard !loop.displayRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                loop.displayRequested.store(false, ordering: .releasing)
                loop.redraw()
            }
        }
    }
}

/// The state of one `run`: the decoder, the renderer, the sources. Main actor only.
@MainActor
final class _EventLoop {
    private let terminal: Terminal
    private let escapeDelay: DispatchTimeInterval
    private let suspendKey: Key?
    private let willSuspend: (@MainActor () -> Void)?
    private let render: @MainActor (Size) -> Screen
    private let handle: @MainActor (TerminalEvent) throws -> TerminalAction

    private var decoder = KeyDecoder()
    private var renderer = FrameRenderer()
    private var size: Size
    private var inputSource: (any DispatchSourceRead)?
    private var resizeSource: (any DispatchSourceRead)?
    private var flushGeneration = 0
    private var continuation: CheckedContinuation<Void, any Error>?
    private var isFinished = false

    /// Whether a `setNeedsDisplay()` render is already queued.
    nonisolated let displayRequested = Atomic<Bool>(false)

    init(
        terminal: Terminal,
        escapeDelay: Duration,
        suspendKey: Key?,
        willSuspend: (@MainActor () -> Void)?,
        render: @escaping @MainActor (Size) -> Screen,
        handle: @escaping @MainActor (TerminalEvent) throws -> TerminalAction
    ) {
        self.terminal = terminal
        self.suspendKey = suspendKey
        self.willSuspend = willSuspend
        let (seconds, attoseconds) = escapeDelay.components
        self.escapeDelay = .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        self.render = render
        self.handle = handle
        self.size = terminal.size
    }

    func run() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            self.continuation = continuation
            startSources()
            redraw()
        }
    }

    private func startSources() {
        let input = terminal.makeInputSource(queue: .main)
        input.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.readInput() }
        }
        input.resume()
        inputSource = input

        if let resize = terminal.makeResizeSource(queue: .main) {
            resize.setEventHandler { [weak self] in
                MainActor.assumeIsolated { self?.resized() }
            }
            resize.resume()
            resizeSource = resize
        }
    }

    private func readInput() {
        guard !isFinished else { return }
        guard let bytes = terminal.readAvailable() else {
            inputSource?.cancel()
            inputSource = nil
            deliver([.inputClosed])
            return
        }
        guard !bytes.isEmpty else { return }
        // New bytes cancel a pending flush: they may complete the sequence.
        flushGeneration += 1
        let keys = decoder.decode(bytes)
        if decoder.hasPendingInput { scheduleFlush() }
        deliver(keys.map(TerminalEvent.key))
    }

    private func scheduleFlush() {
        let generation = flushGeneration
        DispatchQueue.main.asyncAfter(deadline: .now() + escapeDelay) { [weak self] in
            MainActor.assumeIsolated { self?.flush(generation) }
        }
    }

    private func flush(_ generation: Int) {
        guard !isFinished, generation == flushGeneration, decoder.hasPendingInput else { return }
        deliver(decoder.flush().map(TerminalEvent.key))
    }

    private func resized() {
        guard !isFinished else { return }
        terminal.drainResizePipe()
        _ = terminal.recoverIfRestoredBySignal()
        // After a resize (or SIGCONT, or a signal the process survived) the terminal's contents
        // are unknown: redraw in full.
        renderer.invalidate()
        let newSize = terminal.size
        if newSize != size {
            size = newSize
            deliver([.resize(newSize)])
        } else {
            redraw()
        }
    }

    private func deliver(_ events: [TerminalEvent]) {
        for event in events {
            guard !isFinished else { return }
            if let suspendKey, event == .key(suspendKey) {
                // Stops here until `fg`; SIGCONT then redraws in full (see `resized`).
                willSuspend?()
                terminal.suspend()
                continue
            }
            do {
                if try handle(event) == .quit {
                    finish(throwing: nil)
                    return
                }
            } catch {
                finish(throwing: error)
                return
            }
        }
        redraw()
    }

    func redraw() {
        guard !isFinished else { return }
        let bytes = renderer.render(render(size))
        if !bytes.isEmpty { terminal.write(bytes) }
    }

    private func finish(throwing error: (any Error)?) {
        isFinished = true
        inputSource?.cancel()
        resizeSource?.cancel()
        inputSource = nil
        resizeSource = nil
        guard let continuation else { return }
        self.continuation = nil
        if let error {
            continuation.resume(throwing: error)
        } else {
            continuation.resume()
        }
    }
}
