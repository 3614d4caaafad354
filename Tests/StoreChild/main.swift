// A child process for the persistence tests: it writes through a store and is killed (or exits)
// while the test process watches.
//
//   store-child burst PATH   change models forever; after each flush() returns, print
//                            "flushed N" (N: the value every model now holds in the database)
//   store-child exit PATH    change models, then exit normally without calling flush()
//   store-child count PATH ID N   set ticket ID's points to 1...N (and its title to "vN"),
//                            one commit each, then print "done"
//   store-child watch PATH ID     print "title T" for each title ticket ID takes (noticed by
//                            the store's watcher), until the title is "stop"; print "bye"
//   store-child exit-locked PATH  set every ticket's points to 555 and exit without flushing,
//                            while the test holds the write lock (the exit handler reports)
//   store-child hold PATH ID      begin a transaction that changes ticket ID, print "holding",
//                            and wait (to be killed mid-transaction)
//   store-child bulk PATH N       insert N tickets (ticket i: title "b<i>", points i) with one
//                            insert(contentsOf:), then print "inserted FIRST LAST" (their ids)
//   store-child sql PATH SQL...   run each SQL statement on a plain connection with foreign keys
//                            off (as the sqlite3 shell has them), one commit each, then print
//                            "done"
//   (and the modes of Lifecycle.swift)

import Foundation
import Synchronization
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
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: store-child burst|exit|count|watch|hold|bulk PATH [ID [N]]\n".utf8))
    exit(2)
}

if let status = try lifecycleMode(arguments) { exit(status) }

switch arguments[1] {
case "sql":
    let connection = try Connection(path: arguments[2], options: .init(foreignKeys: false))
    for statement in arguments.dropFirst(3) { try connection.execute(statement) }
    say("done")
    exit(0)
case "count":
    let scheduler = TestScheduler()
    let store = try Store(path: arguments[2], scheduler: scheduler, watchesExternalChanges: false)
    guard let ticket = try store.load(Ticket.self, id: Int64(arguments[3])!) else { exit(3) }
    for value in 1...Int(arguments[4])! {
        ticket.points = value
        ticket.title = "v\(value)"
        try store.flush()
    }
    say("done")
    exit(0)
case "watch":
    let scheduler = TestScheduler()
    let store = try Store(path: arguments[2], scheduler: scheduler)
    guard let ticket = try store.load(Ticket.self, id: Int64(arguments[3])!) else { exit(3) }
    let stop = Atomic<Bool>(false)
    observe(ticket, \.title).subscribe(next: { title in
        say("title \(title)")
        if title == "stop" { stop.store(true, ordering: .relaxed) }
    })
    while !stop.load(ordering: .relaxed) {
        scheduler.advance()
        usleep(500)
    }
    say("bye")
    exit(0)
case "bulk":
    let store = try Store(path: arguments[2], scheduler: TestScheduler(), watchesExternalChanges: false)
    let tickets = (0..<Int(arguments[3])!).map { i in
        let ticket = Ticket()
        ticket.title = "b\(i)"
        ticket.points = i
        return ticket
    }
    try store.insert(contentsOf: tickets)
    say("inserted \(tickets.first?.persistentID ?? 0) \(tickets.last?.persistentID ?? 0)")
    exit(0)
case "exit-locked":
    // Another program holds the write lock: the changes cannot be committed before the exit,
    // and the exit handler names them on standard error.
    let store = try Store(path: arguments[2], scheduler: TestScheduler(), busyTimeout: .milliseconds(100), watchesExternalChanges: false)
    for ticket in try store.fetch(Ticket.self) { ticket.points = 555 }
    say("changed")
    exit(0)
case "hold":
    let connection = try Connection(path: arguments[2])
    try connection.execute("BEGIN IMMEDIATE")
    try connection.execute("UPDATE Ticket SET points = -1, title = 'uncommitted' WHERE id = ?", [.integer(Int64(arguments[3])!)])
    say("holding")
    while true { sleep(60) }
default:
    break
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
