// A child process for the persistence tests: it writes through a store and is killed (or exits)
// while the test process watches.
//
//   store-child burst PATH   change models forever; after each flush() returns, print
//                            "flushed N" (N: the value every model now holds in the database)
//   store-child exit PATH    change models, then exit normally without calling flush()

import Foundation
import TetherSQLite

@Model
final class Ticket {
    var title = ""
    var points = 1
    var estimate: Double? = nil
    @Transient var draft = ""
}
extension Ticket: PersistentModel {}

/// Writes a line straight to standard output (write(2): no buffer to lose when killed).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: store-child burst|exit PATH\n".utf8))
    exit(2)
}
let scheduler = TestScheduler()   // never advanced: commits happen at flush() or at exit
let store = try Store(path: arguments[2], scheduler: scheduler)
let tickets = try store.fetch(Ticket.self).isEmpty
    ? (0..<50).map { _ in Ticket() }
    : try store.fetch(Ticket.self)
try store.insert(contentsOf: tickets)

switch arguments[1] {
case "burst":
    var value = 0
    while true {
        value += 1
        for ticket in tickets {
            ticket.points = value
            ticket.title = "v\(value)"
        }
        if value % 10 == 0 {
            try store.flush()
            say("flushed \(value)")
        }
    }
case "exit":
    for ticket in tickets { ticket.points = 777 }
    say("changed")
    exit(0)   // no flush: the store's exit handler commits the pending changes
default:
    exit(2)
}
