import Foundation
import Testing
import TetherSQLite
import TetherTerminal
import TetherTestSupport
@testable import InvoiceKit

/// Two copies of the app on one file, driven by seeded random keys (typing, moving, adding and
/// deleting lines and invoices, choosing customers, filtering, quitting questions), with their
/// commits and looks at the other's interleaved at random, and a third program that inserts,
/// deletes and renumbers invoices by SQL. The file starts with up to 120 invoices, so the
/// list's window scrolls. After each run, once both have written and looked: every invoice
/// each copy shows equals its row, field by field and line by line; each copy's list is
/// exactly the rows of the file at its window's positions, with the selected invoice
/// selected in it; and each copy's selection is a live invoice. A failing seed replays:
/// `TETHER_SEEDS=17 swift test --filter replayAppSeeds`.
@MainActor
@Suite("InvoiceApp: two copies, seeded random keys")
struct TwoCopiesInterleavingTests {
    /// One copy: its store (committing when its scheduler is advanced) and its app.
    @MainActor
    final class Copy {
        let scheduler = TestScheduler()
        let store: Store
        let app: InvoiceApp

        init(path: String) throws {
            store = try openInvoiceStore(path: path, scheduler: scheduler, busyTimeout: .milliseconds(200), watchesExternalChanges: false)
            app = InvoiceApp(store: store)
        }
    }

    @Test(arguments: 1...12)
    func seed(_ seed: Int) throws {
        try Self.run(seed: UInt64(seed), keys: 250)
    }

    /// Replays seeds given in `TETHER_SEEDS` (`17`, or a range `13-400`), 600 keys each.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TETHER_SEEDS"] != nil))
    func replayAppSeeds() throws {
        let parts = (ProcessInfo.processInfo.environment["TETHER_SEEDS"] ?? "").split(separator: "-").compactMap { UInt64($0) }
        let first = try #require(parts.first, "TETHER_SEEDS: a seed or a range such as 13-400")
        for seed in first...(parts.last ?? first) { try Self.run(seed: seed, keys: 600) }
    }

    /// A key a person might press, chosen at random.
    static func randomKey(_ random: inout SeededRandom) -> Key {
        let roll = random.below(100)
        switch roll {
        case 0..<30: return .character(Array("abcxyz0123456789.")[random.below(17)])
        case 30..<34: return .character(Array("张伟 ")[random.below(3)])
        case 34..<44: return .tab
        case 44..<48: return .backTab
        case 48..<54: return .down
        case 54..<58: return .up
        case 58..<64: return .backspace
        case 64..<67: return .enter
        case 67..<70: return .escape
        case 70..<73: return .control("l")
        case 73..<75: return .control("k")
        case 75..<77: return .control("n")
        case 77..<79: return .control("d")
        case 79..<83: return .character(random.chance(50) ? "y" : "n")
        case 83..<85: return .character("/")
        case 85..<86: return .function(1)
        case 86..<88: return .control("u")
        case 88..<90: return .paste(["Ada\tLovelace\n", "12.5", "王五"][random.below(3)])
        case 90..<92: return .control("c")
        case 92..<94: return .home
        case 94..<96: return .end
        case 96..<98: return .pageDown
        default: return .pageUp
        }
    }

    static func run(seed: UInt64, keys: Int) throws {
        var random = SeededRandom(seed: seed)
        let database = try TemporaryDatabase()
        try openInvoiceStore(path: database.path, scheduler: TestScheduler()).close()
        if random.chance(70) { try addGeneratedInvoices(upTo: 3 + random.below(118), toFileAt: database.path) }
        let copies = [try Copy(path: database.path), try Copy(path: database.path)]
        let third = try Connection(path: database.path)
        for step in 0..<keys {
            if random.chance(3) {
                // Another program: invoices come, go, or take another number.
                let number = random.below(130)
                switch random.below(3) {
                case 0: try? third.execute("INSERT INTO Invoice (number, note) VALUES (?, 'third')", [.integer(Int64(number))])
                case 1: try? third.execute("DELETE FROM Invoice WHERE id IN (SELECT id FROM Invoice WHERE number >= ? ORDER BY number LIMIT 1 + ?)",
                                           [.integer(Int64(number)), .integer(Int64(random.below(5)))])
                default: try? third.execute("UPDATE Invoice SET number = ? WHERE id IN (SELECT id FROM Invoice WHERE number >= ? ORDER BY number LIMIT 1)",
                                            [.integer(Int64(random.below(130))), .integer(Int64(number))])
                }
            }
            let copy = copies[random.below(2)]
            _ = copy.app.handle(randomKey(&random))   // .quit is ignored: the copy goes on
            if random.chance(30) { copy.scheduler.advance() }          // the end of its turn: commit
            if random.chance(20) { try? copies[random.below(2)].store.refresh() }   // a look at the other's commits
            if random.chance(5) { _ = copy.app.render(Size(width: random.chance(50) ? 80 : 120, height: 24 + random.below(17))) }
            // The selection is never a deleted invoice once the list has caught up.
            if let invoice = copy.app.current.invoice, invoice.persistentID == nil, copy.app.list.items.contains(where: { $0 === invoice }) {
                Issue.record("seed \(seed), step \(step): the list shows a deleted invoice")
            }
        }
        // Quiet: both write what they hold (invalid rows stay back, as they must), then look.
        for copy in copies {
            copy.scheduler.advance()
            try? copy.store.flush()
        }
        // Twice: what a look makes valid (a price whose line got its description from the
        // other copy) is written at the end of that turn, and the other copy looks again.
        for _ in 0..<2 {
            for copy in copies {
                try copy.store.refresh()
                copy.scheduler.advance()
                try? copy.store.flush()
            }
        }
        for copy in copies { try copy.store.refresh() }
        let reader = try Connection(path: database.path)
        for (index, copy) in copies.enumerated() {
            // A line kept back (a price and no description) differs from the file on purpose;
            // everything else is what the file holds.
            for invoice in try copy.store.fetch(Invoice.self) {
                let id = try #require(invoice.persistentID)
                let row = try reader.rows("SELECT number, note, discount, tax, customer_id FROM Invoice WHERE id = ?", [.integer(id)]).first?.values
                let shown: [SQLiteValue] = [
                    .integer(Int64(invoice.number)), .text(invoice.note), invoice.discount.map(SQLiteValue.real) ?? .null, .real(invoice.tax),
                    invoice.customer?.persistentID.map(SQLiteValue.integer) ?? .null,
                ]
                #expect(row == shown, "seed \(seed), copy \(index): invoice \(id)")
                let lines = try reader.rows("SELECT id, text, quantity, unitPrice FROM InvoiceLine WHERE invoice_id = ? ORDER BY position, id", [.integer(id)])
                let rowIDs = lines.map { $0.values[0] }
                #expect(invoice.lines.map { $0.persistentID.map(SQLiteValue.integer) ?? .null } == rowIDs, "seed \(seed), copy \(index): lines of invoice \(id)")
                for (line, row) in zip(invoice.lines, lines) where line.brokenRules.isEmpty {
                    #expect([.text(line.text), .integer(Int64(line.quantity)), try line.unitPrice.sqliteValue()] == Array(row.values.dropFirst()),
                            "seed \(seed), copy \(index): line \(line.persistentID ?? 0)")
                }
            }
            if let invoice = copy.app.current.invoice {
                #expect(invoice.persistentID != nil, "seed \(seed), copy \(index): the selection is a live invoice")
            }
            // The list: the rows at its window's positions, as a fetch gives them now.
            let app = copy.app
            let rows = try copy.store.fetch(Invoice.self, where: app.condition, orderBy: \.number, limit: app.windowRows, offset: app.windowTop)
            #expect(app.list.items.map(\.persistentID) == rows.map(\.persistentID), "seed \(seed), copy \(index): the window's rows")
            #expect(app.list.items.elementsEqual(rows, by: ===), "seed \(seed), copy \(index): the rows' live objects")
            let count = try copy.store.count(Invoice.self, where: app.condition)
            #expect(app.listCount == count, "seed \(seed), copy \(index): the count")
            #expect(app.windowTop == 0 || rows.count == app.windowRows || app.windowTop == max(0, count - app.windowRows),
                    "seed \(seed), copy \(index): a window that could show more rows does (top \(app.windowTop), \(rows.count) of \(count))")
            if let invoice = app.current.invoice, app.list.items.contains(where: { $0 === invoice }) {
                #expect(app.list.selectedItem === invoice, "seed \(seed), copy \(index): the selected invoice is the list's selection")
            }
        }
    }
}
