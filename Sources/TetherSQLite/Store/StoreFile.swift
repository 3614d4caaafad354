import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The database file a store opened, and what the store's connection can do with it.
///
/// **Identity.** The file is remembered by its identity (device and inode number), so the store
/// notices when its path no longer names that file: the file was deleted, renamed away, or
/// another file was put in its place while the store had it open. A connection keeps writing
/// into a deleted file (it has it open: the writes succeed and are lost when it closes), and
/// never into the file now at the path. So the store checks, with one `stat(2)`, before each
/// write (a write-through commit, an insert, a delete, an update, a table created), and its
/// watcher thread checks whenever the directory changes and once a second (see
/// Sources/TetherSQLite/TetherSQLite.docc/Persistence.md, "Faults").
///
/// **Read-only.** SQLite opens a file the process may not write read-only, without a word. A
/// write that fails with any `SQLITE_READONLY` code makes the next write open the connection
/// again first (unless the store was opened read-only on purpose), so the pending changes are
/// written once the file is writable.
///
/// Its methods that take a connection run on the writer queue; the rest from any thread.
final class _StoreFile: Sendable {
    /// The path as the store was given it (for messages).
    let path: String
    /// Whether the store was opened with `readOnly: true`.
    let readOnlyOnPurpose: Bool
    /// The path made absolute when the store opened (the process may change directory later).
    private let absolutePath: String
    /// The file's identity when the store opened it; nil for an in-memory database, or a
    /// path `stat` could not read then (never reported as lost).
    private let identity: Identity?
    /// Whether the watcher saw the file lost at its last look (it tells the store once per loss).
    private let watcherSawLoss = Atomic<Bool>(false)
    /// Whether the connection is read-only (as SQLite says, at opening and at each reopening).
    private let connectionReadOnly: Atomic<Bool>
    /// Whether a write failed with `SQLITE_READONLY` since the connection was last opened.
    private let reopenPending = Atomic<Bool>(false)

    struct Identity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// What `path` names now.
    private enum Lookup: Equatable {
        case file(Identity)
        /// Nothing (`ENOENT`, `ENOTDIR`): the file was deleted or moved away.
        case missing
        /// `stat` failed otherwise (permissions, I/O): not taken as a loss; SQLite reports its
        /// own error if writing fails.
        case unknown
    }

    /// Remembers the identity of the file at `path` (call it once the connection has it open).
    init(path: String, readOnlyOnPurpose: Bool, connectionReadOnly: Bool) {
        self.path = path
        self.readOnlyOnPurpose = readOnlyOnPurpose
        self.connectionReadOnly = Atomic(connectionReadOnly)
        if path.isEmpty || path == ":memory:" {
            absolutePath = path
            identity = nil
        } else {
            absolutePath = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            if case .file(let identity) = Self.lookUp(absolutePath) { self.identity = identity } else { identity = nil }
        }
    }

    private static func lookUp(_ path: String) -> Lookup {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return errno == ENOENT || errno == ENOTDIR ? .missing : .unknown
        }
        return .file(Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)))
    }

    /// Whether the path no longer names the file the store opened (one `stat`).
    var isLost: Bool {
        guard let identity else { return false }
        switch Self.lookUp(absolutePath) {
        case .file(let now): return now != identity
        case .missing: return true
        case .unknown: return false
        }
    }

    /// Throws `StoreError.fileLost` if the path no longer names the file the store opened. Call
    /// it on the writer queue, before a write.
    func check() throws(StoreError) {
        if isLost { throw .fileLost(path: path) }
    }

    /// For the watcher thread: true when it finds the file lost and did not at its previous look.
    func watcherFindsNewLoss() -> Bool {
        let lost = isLost
        let before = watcherSawLoss.exchange(lost, ordering: .relaxed)
        return lost && !before
    }

    // MARK: Writing

    /// Whether the connection cannot write: opened read-only on purpose, or a file SQLite could
    /// only open read-only.
    var isReadOnly: Bool { readOnlyOnPurpose || connectionReadOnly.load(ordering: .relaxed) }

    /// Runs a write (`body`, with `connection`, on the writer queue): first checks that the path
    /// still names the store's file, and opens the connection again if a write found it
    /// read-only since it was opened; after an `SQLITE_READONLY` failure, the next write does.
    func write<Result>(_ connection: Connection, _ body: () throws -> Result) throws -> Result {
        try check()
        if reopenPending.load(ordering: .relaxed) { try reopen(connection) }
        do {
            return try body()
        } catch {
            if !readOnlyOnPurpose, StoreError.wrap(error).sqliteError?.isReadOnly == true {
                reopenPending.store(true, ordering: .relaxed)
            }
            throw error
        }
    }

    /// Opens the connection again (the file may have become writable), after giving leftover
    /// `-wal` and `-shm` files the database file's mode if need be. The path is checked before
    /// and after: the connection opened the store's own file.
    private func reopen(_ connection: Connection) throws {
        Self.repairSidecarModes(of: absolutePath)
        try connection.reopen()
        reopenPending.store(false, ordering: .relaxed)
        connectionReadOnly.store(connection.isReadOnly, ordering: .relaxed)
        try check()
    }

    /// Makes a leftover `-wal` or `-shm` that this process owns but may not write writable again
    /// when the database file itself is writable, by giving it the database file's permission
    /// bits. Call it before opening the database read-write.
    ///
    /// Why: SQLite creates `-wal` and `-shm` with the permissions of the database file, so a
    /// connection to a 0444 file leaves 0444 ones behind when it cannot remove them at close (a
    /// read-only connection cannot). Once the database file is writable again, a new connection
    /// would still map a read-only `-shm` and every write would fail with `SQLITE_READONLY`
    /// (https://www.sqlite.org/wal.html#readonly: without write access to `-shm`, a connection
    /// can only read). The files are not removed: the `-wal` may hold committed transactions,
    /// and another process may have the `-shm` mapped (https://www.sqlite.org/walformat.html);
    /// changing their mode to the one SQLite would have given them loses nothing.
    static func repairSidecarModes(of path: String) {
        guard !path.isEmpty, path != ":memory:" else { return }
        var database = stat()
        guard stat(path, &database) == 0, faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0 else { return }
        for suffix in ["-wal", "-shm"] {
            let sidecar = path + suffix
            var status = stat()
            guard lstat(sidecar, &status) == 0,
                  status.st_mode & S_IFMT == S_IFREG,
                  status.st_uid == geteuid(),
                  faccessat(AT_FDCWD, sidecar, W_OK, AT_EACCESS) != 0 else { continue }
            _ = chmod(sidecar, database.st_mode & 0o777)
        }
    }
}
