import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The database file a store opened, remembered by its identity (device and inode number), so
/// the store notices when its path no longer names that file: the file was deleted, renamed
/// away, or another file was put in its place while the store had it open.
///
/// A connection keeps writing into a deleted file (it has it open: the writes succeed and are
/// lost when it closes), and never into the file now at the path. So the store checks, with one
/// `stat(2)`, before each write (a write-through commit, an insert, a delete, an update, a table
/// created), and its watcher thread checks whenever the directory changes and once a second
/// (see docs/PERSISTENCE.md, "Faults").
final class _StoreFile: Sendable {
    /// The path as the store was given it (for messages).
    let path: String
    /// The path made absolute when the store opened (the process may change directory later).
    private let absolutePath: String
    /// The file's identity when the store opened it; nil for an in-memory database, or a
    /// path `stat` could not read then (never reported as lost).
    private let identity: Identity?
    /// Whether the watcher saw the file lost at its last look (it tells the store once per loss).
    private let watcherSawLoss = Atomic<Bool>(false)

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
    init(path: String) {
        self.path = path
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
}
