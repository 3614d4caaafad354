#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// What a command printed, and how it ended.
struct CommandResult {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs a command (found on PATH) to completion with `posix_spawnp` and `waitpid`, not
/// Foundation's `Process`:
///
/// - the child starts with no blocked signals and default dispositions. A spawned process
///   inherits the spawning thread's signal mask, and the test threads (dispatch's) block nearly
///   every signal: a tmux server started with that mask never sees the SIGTERM that
///   `kill-server` sends it;
/// - `waitpid` on the child's own pid. `Process.waitUntilExit()` was seen to hang here, the
///   tmux client left a zombie that it never noticed.
///
/// With `capture: false`, standard output and error go to /dev/null: the server that
/// `tmux new-session` leaves running must not hold a pipe of ours open.
func runCommand(_ arguments: [String], capture: Bool = true) throws -> CommandResult {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }

    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    sigdelset(&allSignals, SIGKILL)
    sigdelset(&allSignals, SIGSTOP)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    var outputPipe: [Int32] = [-1, -1]
    var errorPipe: [Int32] = [-1, -1]
    if capture {
        guard pipe(&outputPipe) == 0, pipe(&errorPipe) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        // Only the duplicates on 1 and 2 reach the child (other tests may spawn meanwhile).
        for fd in outputPipe + errorPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
    } else {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }

    var pid: pid_t = 0
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
    if capture {
        close(outputPipe[1])
        close(errorPipe[1])
    }
    guard spawned == 0 else {
        if capture {
            close(outputPipe[0])
            close(errorPipe[0])
        }
        throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
    }
    // The outputs here are small (a screen at most), well under a pipe's buffer: reading one
    // after the other cannot block the child.
    let output = capture ? readAll(outputPipe[0]) : ""
    let errors = capture ? readAll(errorPipe[0]) : ""
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
    // WIFEXITED / WEXITSTATUS, which Swift does not import.
    let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return CommandResult(status: exitStatus, output: output, errors: errors)
}

/// Reads a file descriptor to its end, then closes it.
private func readAll(_ fd: Int32) -> String {
    defer { close(fd) }
    var data = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count > 0 {
            data += buffer[0..<count]
        } else if count < 0 && errno == EINTR {
            continue
        } else {
            break
        }
    }
    return String(decoding: data, as: UTF8.self)
}
