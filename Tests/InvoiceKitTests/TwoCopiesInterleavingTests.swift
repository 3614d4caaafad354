import Foundation
import Testing
import TetherSQLite
import TetherTerminal
import TetherTestSupport
@testable import InvoiceKit

/// Two copies of the app on one file, driven by seeded random keys (typing any Unicode, moving,
/// adding and deleting lines and invoices, choosing customers, filtering, quitting at any
/// moment), with their commits and looks at the other's interleaved at random, and a third
/// program that inserts, deletes and renumbers invoices, deletes the lines being edited, writes
/// random Unicode (controls, invisible characters) into notes, lines and customers' names, and
/// holds the write lock for a while so that writes fail. The file starts with up to 120
/// invoices, so the list's window scrolls.
///
/// At every key: no trap (any text renders); a key typed into a field of the invoice shown
/// changes that field's model and no other; and a quit (`.quit`) loses nothing unasked: either
/// nothing was unsaved, or the key answered the question that named what was. A copy that
/// quits is closed and started again on the file, as a person would.
///
/// After each run, once both have written and looked: every invoice each copy shows equals its
/// row, field by field and line by line; each copy's list is exactly the rows of the file at its
/// window's positions, with the selected invoice selected in it; and each copy's selection is a
/// live invoice. A failing seed replays: `TETHER_SEEDS=17 swift test --filter replayAppSeeds`.
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
        case 88..<90: return random.chance(50) ? .paste(["Ada\tLovelace\n", "12.5", "王五"][random.below(3)]) : .paste(RandomText.text(&random, maximum: 6))
        case 90..<91: return .character(RandomText.piece(&random).first ?? "?")
        case 91..<92: return .control("c")
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
        var copies = [try Copy(path: database.path), try Copy(path: database.path)]
        let third = try Connection(path: database.path)
        var lockHeldFor = 0
        /// Per copy, the field the focus was in after its last key: the focus the user saw.
        var focusSeen: [String?] = [nil, nil]
        for step in 0..<keys {
            if lockHeldFor > 0 {
                lockHeldFor -= 1
                if lockHeldFor == 0 { try third.execute("ROLLBACK") }
            } else if random.chance(2) {
                // Another program holds the write lock for a few keys: writes fail meanwhile.
                try third.execute("BEGIN IMMEDIATE")
                lockHeldFor = 1 + random.below(8)
            } else if random.chance(3) {
                // Another program deletes a line (often one a copy is editing), or writes text
                // of any Unicode content where the copies show it.
                let poison = RandomText.text(&random, maximum: 8)
                switch random.below(4) {
                case 0:
                    let focused = copies[random.below(2)].app.lineRows.first.flatMap { $0.line.persistentID }
                    try? third.execute("DELETE FROM InvoiceLine WHERE id = coalesce(?, (SELECT id FROM InvoiceLine ORDER BY random() LIMIT 1))",
                                       [focused.map(SQLiteValue.integer) ?? .null])
                case 1: try? third.execute("UPDATE Customer SET name = ? WHERE id = (SELECT id FROM Customer ORDER BY id LIMIT 1 OFFSET ?)", [.text(poison), .integer(Int64(random.below(3)))])
                case 2: try? third.execute("UPDATE Invoice SET note = ? WHERE id = (SELECT id FROM Invoice ORDER BY number LIMIT 1 OFFSET ?)", [.text(poison), .integer(Int64(random.below(4)))])
                default: try? third.execute("UPDATE InvoiceLine SET text = ? WHERE id = (SELECT id FROM InvoiceLine ORDER BY id LIMIT 1 OFFSET ?)", [.text(poison), .integer(Int64(random.below(6)))])
                }
            } else if random.chance(3) {
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
            let which = random.below(2)
            let copy = copies[which]
            let key = randomKey(&random)
            let wasAsked = !copy.app.unsavedAtQuit.isEmpty
            let before = FieldValues(copy.app)
            // The focus moved without a key of this copy (what it was in went away): the key
            // was typed for the field seen before, and must land nowhere else.
            let movedUnseen = focusSeen[which] != nil && before.focusName != focusSeen[which]
            let action = copy.app.handle(key)
            before.check(after: copy.app, key: key, focusMovedUnseen: movedUnseen, seed: seed, step: step)
            focusSeen[which] = FieldValues(copy.app).focusName
            if action == .quit {
                // Nothing is lost unasked: the question named what was unsaved, and this key
                // answered it; or nothing was unsaved (quit wrote it all: closing writes nothing).
                if copy.app.quitsWithoutSaving {
                    #expect(wasAsked, "seed \(seed), step \(step): quit without saving, never asked")
                    copy.store.closeDiscardingChanges()
                } else {
                    #expect(copy.store.pendingRowCount == 0, "seed \(seed), step \(step): quit with \(copy.store.pendingRowCount) rows unsaved, unasked")
                    do { try copy.store.close() } catch { Issue.record("seed \(seed), step \(step): quit, then closing lost changes: \(error)") }
                }
                // Started again, as a person would (once the other program lets go of the lock).
                if lockHeldFor > 0 {
                    try third.execute("ROLLBACK")
                    lockHeldFor = 0
                }
                copies[which] = try Copy(path: database.path)
                focusSeen[which] = nil
                continue
            }
            if random.chance(30) { copy.scheduler.advance() }          // the end of its turn: commit
            if random.chance(20) { try? copies[random.below(2)].store.refresh() }   // a look at the other's commits
            if random.chance(5) {
                let size = Size(width: random.chance(50) ? 80 : 120, height: 24 + random.below(17))
                // Any text renders (no trap), and the renderer sends no control byte of the text.
                let screen = copy.app.render(size)
                let bytes = FrameRenderer.fullRedraw(screen).unicodeScalars.filter { $0.value < 0x20 && $0 != "\u{1b}" && $0 != "\r" && $0 != "\n" }
                #expect(bytes.isEmpty, "seed \(seed), step \(step): control characters in the output")
                if let cursor = screen.cursor, !screen.bounds.contains(cursor) {
                    Issue.record("seed \(seed), step \(step): the cursor \(cursor) is outside the window")
                }
            }
            // The selection is never a deleted invoice once the list has caught up.
            if let invoice = copy.app.current.invoice, invoice.persistentID == nil, copy.app.list.items.contains(where: { $0 === invoice }) {
                Issue.record("seed \(seed), step \(step): the list shows a deleted invoice")
            }
        }
        if lockHeldFor > 0 { try third.execute("ROLLBACK") }
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
                // (A new line kept back by its rules is not in the file yet: on purpose.)
                let stored = invoice.lines.filter { $0.persistentID != nil || $0.brokenRules.isEmpty }
                #expect(stored.map { $0.persistentID.map(SQLiteValue.integer) ?? .null } == rowIDs, "seed \(seed), copy \(index): lines of invoice \(id)")
                for (line, row) in zip(stored, lines) where line.brokenRules.isEmpty {
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

/// The values of the fields of the invoice a copy shows and of its lines, read before a key,
/// and which field had the focus: a key typed into a field may change that field's model only.
@MainActor
struct FieldValues {
    /// (the model, the property) -> the value, as text.
    let values: [String: String]
    let models: [(AnyObject, [(String, () -> String)])]
    /// The field the focus was in, as (model, property), if it edits the invoice or a line.
    let focused: (ObjectIdentifier, String)?

    init(_ app: InvoiceApp) {
        var models: [(AnyObject, [(String, () -> String)])] = []
        var focused: (ObjectIdentifier, String)?
        if let invoice = app.current.invoice {
            models.append((invoice, [("note", { invoice.note }), ("discount", { "\(String(describing: invoice.discount))" }), ("tax", { "\(invoice.tax)" })]))
            if app.form.isFocused(app.note) { focused = (ObjectIdentifier(invoice), "note") }
            if app.form.isFocused(app.discount) { focused = (ObjectIdentifier(invoice), "discount") }
            if app.form.isFocused(app.tax) { focused = (ObjectIdentifier(invoice), "tax") }
            for row in app.lineRows {
                let line = row.line
                models.append((line, [("text", { line.text }), ("quantity", { "\(line.quantity)" }), ("unitPrice", { "\(line.unitPrice)" })]))
                for (field, name) in zip(row.fields, ["text", "quantity", "unitPrice"]) where app.form.isFocused(field) {
                    focused = (ObjectIdentifier(line), name)
                }
            }
        }
        var values: [String: String] = [:]
        for (model, fields) in models {
            for (name, read) in fields { values["\(ObjectIdentifier(model).hashValue).\(name)"] = read() }
        }
        self.values = values
        self.models = models
        self.focused = focused
    }

    /// The focused field, named by its model's identity and property.
    var focusName: String? { focused.map { "\($0.0.hashValue).\($0.1)" } }

    /// After `key`: a key that types or deletes text changed no field but the one focused, and
    /// none at all when the focus had moved to it without a key (keys that answer a question,
    /// filter, pick a customer or delete are not typing).
    func check(after app: InvoiceApp, key: Key, focusMovedUnseen: Bool, seed: UInt64, step: Int) {
        switch key {
        case .character("y"), .character("Y"), .character("q"), .character("/"), .character("?"): return
        case .character, .paste, .backspace, .delete: break
        default: return
        }
        for (model, fields) in models {
            for (name, read) in fields {
                let id = ObjectIdentifier(model)
                guard values["\(id.hashValue).\(name)"] != read() else { continue }
                if let focused, focused.0 == id, focused.1 == name, !focusMovedUnseen { continue }
                Issue.record("seed \(seed), step \(step): \(key) changed \(type(of: model)).\(name), not the field with the focus (\(focused.map { "\($0.1)" } ?? "none")\(focusMovedUnseen ? ", moved there without a key" : ""))")
            }
        }
    }
}
