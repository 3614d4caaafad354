#if os(Linux)
import Glibc
import TetherTerminal

/// A pseudo-terminal pair for tests: the program under test uses `slave` as its terminal, the
/// test plays the user and the screen through `master`.
final class PseudoTerminal {
    let master: Int32
    let slave: Int32

    /// `_IOW('T', 0x31, int)` and `_IOR('T', 0x30, unsigned int)`: not exported by Glibc.
    private static let unlock: UInt = 0x4004_5431
    private static let number: UInt = 0x8004_5430

    init(size: Size = Size(width: 20, height: 5)) throws {
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw TerminalError.systemCall("open /dev/ptmx", errno: errno) }
        var unlocked: Int32 = 0
        var index: UInt32 = 0
        guard ioctl(master, Self.unlock, &unlocked) == 0, ioctl(master, Self.number, &index) == 0 else {
            close(master)
            throw TerminalError.systemCall("ioctl ptmx", errno: errno)
        }
        slave = open("/dev/pts/\(index)", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            close(master)
            throw TerminalError.systemCall("open pts", errno: errno)
        }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        resize(to: size)
    }

    deinit {
        close(slave)
        close(master)
    }

    /// Sets the window size, as a terminal emulator does when its window is resized.
    func resize(to size: Size) {
        var window = winsize(ws_row: UInt16(size.height), ws_col: UInt16(size.width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &window)
    }

    /// The slave's current settings.
    var settings: termios {
        var settings = termios()
        _ = tcgetattr(slave, &settings)
        return settings
    }

    /// Types `text` (its UTF-8 bytes) as the user.
    func type(_ text: String) { type(Array(text.utf8)) }

    /// Sends `bytes` as the user's keyboard.
    func type(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Everything the program wrote so far: reads until no byte arrives for `quiet` ms (waiting
    /// for I/O with poll, not sleeping).
    func output(quiet: Int32 = 50) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        while poll(&descriptor, 1, quiet) > 0 {
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Whether two termios settings are identical, byte for byte.
func sameSettings(_ a: termios, _ b: termios) -> Bool {
    var a = a
    var b = b
    return withUnsafeBytes(of: &a) { first in withUnsafeBytes(of: &b) { second in first.elementsEqual(second) } }
}

/// The current disposition of `signal` is the default one.
func hasDefaultDisposition(_ signal: Int32) -> Bool {
    var action = sigaction()
    _ = sigaction(signal, nil, &action)
    return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 0
}
#endif
