// The store-child modes of the lifecycle tests (Tests/TetherSQLiteTests/FileLostTests.swift,
// ReadOnlyTests.swift): what happens to a store whose file goes away or cannot be written.
//
//   store-child lost PATH     insert 2 tickets and flush; delete PATH, PATH-wal and PATH-shm;
//                             change both tickets; print "changed"; exit normally (the exit
//                             handler names the unwritten rows on standard error)
//
// The modes below first drop root's privileges (to uid and gid 65534, "nobody"), since root
// may write any file: file permissions only bind other users.
//
//   store-child readonly PATH retry|flush
//                             open the store; print "readonly B" (whether its connection is
//                             read-only) and "error E" for each error on `errors`; set ticket
//                             1's title to "written" and end the turn; print "pending N"; wait
//                             for the line "go" on standard input; then let the retry run
//                             (retry) or call flush() (flush: "flush failed E" if it throws);
//                             print "pending N", "readonly B"; close the store; print "closed"
//                             (or "close failed E" and exit 7)
//   store-child readonly-exit PATH
//                             open the store, print "readonly B" and "title T" (ticket 1's),
//                             exit normally
//   store-child open PATH     open the store (or print "failed E" and exit 6), print
//                             "readonly B", set ticket 1's points to 7, flush, print "written",
//                             close, print "closed"

import Foundation
import TetherSQLite

/// Runs the lifecycle mode `arguments[1]`, if it is one, and returns its exit status.
func lifecycleMode(_ arguments: [String]) throws -> Int32? {
    switch arguments[1] {
    case "lost":
        let path = arguments[2]
        let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let tickets = [Ticket(), Ticket()]
        try store.insert(contentsOf: tickets)
        try store.flush()
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        for ticket in tickets {
            ticket.points = 5
            ticket.title = "lost"
        }
        say("changed")
        exit(0)   // the store is open: its exit handler reports
    case "readonly":
        dropPrivileges()
        let scheduler = TestScheduler()
        let store = try Store(path: arguments[2], scheduler: scheduler, watchesExternalChanges: false)
        store.errors.subscribe(next: { say("error \($0)") })
        say("readonly \(readOnly(store))")
        guard let ticket = try store.load(Ticket.self, id: 1) else { return 3 }
        ticket.title = "written"
        endTurn(store, scheduler)
        say("pending \(store.pendingRowCount)")
        guard readLine() == "go" else { return 5 }
        if arguments[3] == "flush" {
            do { try store.flush() } catch { say("flush failed \(error)") }
        } else {
            endTurn(store, scheduler, after: .milliseconds(50))   // the first retry's delay
        }
        say("pending \(store.pendingRowCount)")
        say("readonly \(readOnly(store))")
        do { try store.close() } catch {
            say("close failed \(error)")
            return 7
        }
        say("closed")
        return 0
    case "readonly-exit":
        dropPrivileges()
        let store = try Store(path: arguments[2], scheduler: TestScheduler(), watchesExternalChanges: false)
        say("readonly \(readOnly(store))")
        say("title \(try store.load(Ticket.self, id: 1)?.title ?? "none")")
        exit(0)
    case "open":
        dropPrivileges()
        let store: Store
        do {
            store = try Store(path: arguments[2], scheduler: TestScheduler(), watchesExternalChanges: false)
        } catch {
            say("failed \(error)")
            return 6
        }
        say("readonly \(readOnly(store))")
        guard let ticket = try store.load(Ticket.self, id: 1) else { return 3 }
        ticket.points = 7
        try store.flush()
        say("written")
        try store.close()
        say("closed")
        return 0
    default:
        return nil
    }
}

/// Whether the store's connection is read-only.
func readOnly(_ store: Store) -> Bool {
    store.isReadOnly
}

/// Ends the scheduler's turn (`after` a delay: a retry's) and applies the outcome of the commit
/// it started.
func endTurn(_ store: Store, _ scheduler: TestScheduler, after delay: Duration? = nil) {
    if let delay { scheduler.advance(by: delay) } else { scheduler.advance() }
    store.database.sync { _ in }
    scheduler.advance()
}

/// Becomes uid and gid 65534 ("nobody"), if running as root.
func dropPrivileges() {
    guard geteuid() == 0 else { return }
    guard setgroups(0, nil) == 0, setgid(65534) == 0, setuid(65534) == 0 else {
        FileHandle.standardError.write(Data("store-child: cannot drop privileges: errno \(errno)\n".utf8))
        exit(4)
    }
}
