// The store-child modes of the lifecycle tests (Tests/TetherSQLiteTests/FileLostTests.swift,
// ReadOnlyTests.swift): what happens to a store whose file goes away or cannot be written.
//
//   store-child lost PATH     insert 2 tickets and flush; delete PATH, PATH-wal and PATH-shm;
//                             change both tickets; print "changed"; exit normally (the exit
//                             handler names the unwritten rows on standard error)

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
    default:
        return nil
    }
}
