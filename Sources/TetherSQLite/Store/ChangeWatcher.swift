import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Notices that the database file may have changed, whoever changed it, and calls `onChange`.
///
/// A thread sleeps in `poll(2)` on an inotify descriptor watching the database's directory
/// (SQLite writes a commit to the `-wal` file, or to the database file itself in rollback-journal
/// mode). After a write it calls `onChange` at once, then again 0.2, 1, 5 and 25 ms later: the last
/// `write(2)` of a commit comes just before SQLite publishes the commit in shared memory (the
/// `-shm` file, written through `mmap`, which inotify does not see), so the first look may come
/// a moment too early. Besides, it calls `onChange` every `fallbackInterval` whatever happens
/// (a safety net for file systems where inotify sees nothing, such as network mounts). Where
/// inotify is unavailable it polls every `pollInterval` instead.
///
/// Idle, it costs one wake-up per `fallbackInterval`.
final class _ChangeWatcher: Sendable {
    private let handler: _Locked<(@Sendable () -> Void)?>
    /// The write end of a pipe whose read end wakes the thread to stop it.
    private let stopFD: Int32

    /// Starts watching `path`, or returns nil if the thread cannot be set up.
    init?(
        path: String,
        fallbackInterval: Duration,
        pollInterval: Duration,
        onChange: @escaping @Sendable () -> Void
    ) {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { return nil }
        _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
        self.stopFD = pipeFDs[1]
        self.handler = _Locked(onChange)

        let url = URL(fileURLWithPath: path).standardizedFileURL
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        let names: Set<String> = [name, name + "-wal", name + "-journal"]
        var inotifyFD = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if inotifyFD >= 0 {
            // Writes to the files, and the files appearing, disappearing or being renamed (the
            // store checks that the database file is still the one it opened).
            let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)
            if inotify_add_watch(inotifyFD, directory, mask) < 0 {
                close(inotifyFD)
                inotifyFD = -1
            }
        }
        let loop = _WatchLoop(
            inotifyFD: inotifyFD,
            stopFD: pipeFDs[0],
            names: names,
            fallback: inotifyFD >= 0 ? fallbackInterval : pollInterval,
            handler: handler)
        let thread = Thread { loop.run() }
        thread.name = "Tether.Store.watcher"
        thread.start()
    }

    /// Stops the thread: `onChange` is not called after this returns. The thread closes its
    /// descriptors as it ends. Stopping again does nothing.
    func stop() {
        handler.withLock { handler in
            guard handler != nil else { return }
            handler = nil
            close(stopFD)   // the read end sees end-of-file
        }
    }
}

/// The watcher thread's loop. Its state is the thread's own (immutable descriptors; the
/// handler behind its lock).
private struct _WatchLoop: Sendable {
    let inotifyFD: Int32
    /// The read end of the stop pipe.
    let stopFD: Int32
    let names: Set<String>
    let fallback: Duration
    let handler: _Locked<(@Sendable () -> Void)?>

    /// Follow-up looks after a write, after the first, immediate one.
    static let followUps: [Duration] = [.microseconds(200), .milliseconds(1), .milliseconds(5), .milliseconds(25)]

    func run() {
        defer {
            if inotifyFD >= 0 { close(inotifyFD) }
            close(stopFD)
        }
        let clock = ContinuousClock()
        var nextFallback = clock.now + fallback
        var followUps: [ContinuousClock.Instant] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let now = clock.now
            let deadline = min(nextFallback, followUps.first ?? nextFallback)
            let timeout = max(0, Self.milliseconds(deadline - now))
            var fds = [pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
            if inotifyFD >= 0 { fds.append(pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(clamping: timeout))
            if ready < 0 && errno != EINTR { return }
            if fds[0].revents != 0 { return }   // stop
            var call = false
            if fds.count > 1, fds[1].revents != 0, readEvents(into: &buffer) {
                call = true
                let now = clock.now
                followUps = Self.followUps.map { now + $0 }
            }
            let after = clock.now
            while let first = followUps.first, first <= after {
                followUps.removeFirst()
                call = true
            }
            if nextFallback <= after {
                call = true
                nextFallback = after + fallback
            }
            if call {
                guard let handler = handler.withLock({ $0 }) else { return }
                handler()
            }
        }
    }

    /// Drains the inotify descriptor; true if an event concerned the database's files (or
    /// events were lost).
    private func readEvents(into buffer: inout [UInt8]) -> Bool {
        var relevant = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress, $0.count) }
            guard count > 0 else { return relevant }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 { relevant = true }
                    if length > 0 {
                        let nameBytes = bytes[(offset + header)..<(offset + header + length)]
                        let end = nameBytes.firstIndex(of: 0) ?? nameBytes.endIndex
                        let name = String(decoding: bytes[(offset + header)..<end], as: UTF8.self)
                        if names.contains(name) { relevant = true }
                    }
                    offset += header + length
                }
            }
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
