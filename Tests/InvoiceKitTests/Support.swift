import Foundation
import Synchronization
import Testing
import TetherSQLite
import TetherTerminal
@testable import InvoiceKit

/// A fresh directory for a database file, removed when the value is freed.
final class TemporaryDatabase {
    let directory: String
    var path: String { directory + "/invoices.sqlite" }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("invoicekit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A separate connection, to see what was committed.
    func rows(_ sql: String) throws -> [[SQLiteValue]] {
        try Connection(path: path).rows(sql).map(\.values)
    }
}

/// Counts calls (of `needsDisplay`).
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func increment() { count.add(1, ordering: .relaxed) }
}

/// An app on a fresh database with the example invoices, whose store commits only at
/// `flush()` or when the test advances its scheduler, so a test controls when changes are
/// written.
@MainActor
final class Harness {
    let database: TemporaryDatabase
    let store: Store
    /// The store's scheduler: advancing it ends the turn (the store commits, and reports).
    let scheduler = TestScheduler()
    let app: InvoiceApp
    let redraws = Counter()

    /// `invoices`: with the examples, the file holds this many invoices (numbered from 1, the
    /// ones after the examples made by `addGeneratedInvoices`).
    init(seed: Bool = true, busyTimeout: Duration = .seconds(5), invoices: Int = 3) throws {
        database = try TemporaryDatabase()
        if invoices > 3 {
            try openInvoiceStore(path: database.path, scheduler: TestScheduler()).close()
            try addGeneratedInvoices(upTo: invoices, toFileAt: database.path)
        }
        store = seed
            ? try openInvoiceStore(path: database.path, scheduler: scheduler, busyTimeout: busyTimeout)
            : try Store(path: database.path, scheduler: scheduler, migrator: invoiceMigrator(), busyTimeout: busyTimeout)
        let redraws = self.redraws
        app = InvoiceApp(store: store, title: "test.sqlite") { redraws.increment() }
        scheduler.advance()   // the turn that drew the first screen ends: the invoices are counted
    }

    /// Sends keys; returns the action of the last one.
    @discardableResult
    func press(_ keys: Key...) -> TerminalAction {
        var action = TerminalAction.continue
        for key in keys { action = app.handle(key) }
        return action
    }

    /// Types each character of `text`.
    func type(_ text: String) {
        for character in text { _ = app.handle(.character(character)) }
    }

    /// The screen at the end-to-end tests' size.
    func screen() -> Screen { app.render(Size(width: 120, height: 40)) }

    /// The screen's rows, without trailing spaces.
    func lines() -> [String] {
        screen().lines.map { line in String(line.reversed().drop(while: { $0 == " " }).reversed()) }
    }
}

/// `a` and `b` are equal to within rounding.
func close(_ a: Double?, _ b: Double) -> Bool {
    guard let a else { return false }
    return abs(a - b) < 1e-9
}
