import Foundation
import Testing
import TetherSQLite   // the public API only, as a user's package sees it

/// A stored parent's to-many collections are read on their first use, not with the parent:
/// fetching customers does not read every invoice, and a child's parent does not read its
/// siblings. What the first use finds is the rows as they are then, with this store's
/// changes not written yet.
@Suite("To-many collections read on first use")
struct LazyCollectionTests {
    /// Sheets `s1` … `s<count>`, each with entries of amounts [n, n] (stored, then a new store
    /// on the file, whose SQL is logged from here on).
    func storedSheets(_ count: Int) throws -> StoreFixture {
        let fixture = try StoreFixture()
        try fixture.store.insert(contentsOf: (1...count).map { n in
            let sheet = Sheet()
            sheet.title = "s\(n)"
            sheet.entries = [10, 20].map { position in
                let entry = Entry()
                entry.position = position
                entry.amount = n
                entry.label = "s\(n)-\(position)"
                return entry
            }
            return sheet
        })
        try fixture.store.flush()
        fixture.close()
        try fixture.open()
        fixture.log.clear()
        return fixture
    }

    func entrySelects(_ fixture: StoreFixture) -> [String] {
        fixture.log.statements.filter { $0.hasPrefix("SELECT") && $0.contains("FROM \"Entry\"") }
    }

    @Test func aParentsCollectionIsReadOnItsFirstUseWithThoseOfTheParentsFetchedWithIt() throws {
        let fixture = try storedSheets(20)
        let sheets = try fixture.store.fetch(Sheet.self)
        #expect(sheets.count == 20)
        #expect(entrySelects(fixture).isEmpty, "fetching the sheets reads no entry")
        #expect(sheets[3].entries.map(\.label) == ["s4-10", "s4-20"])
        #expect(entrySelects(fixture).count == 1)
        #expect(sheets.allSatisfy { $0.total == 2 * Int($0.title.dropFirst())! })
        #expect(entrySelects(fixture).count == 1, "the sheets fetched with it came along, in the same query")
        #expect(sheets.allSatisfy { sheet in sheet.entries.allSatisfy { $0.sheet === sheet } })
    }

    @Test func aChildsParentDoesNotReadItsSiblings() throws {
        let fixture = try storedSheets(3)
        let entry = try #require(try fixture.store.fetch(Entry.self, where: "label = ?", ["s2-10"]).first)
        let sheet = try #require(entry.sheet)
        #expect(sheet.title == "s2")
        #expect(entrySelects(fixture).count == 1, "only the entry's own fetch: \(entrySelects(fixture))")
        #expect(sheet.entries.map(\.label) == ["s2-10", "s2-20"])
        #expect(sheet.entries.first === entry, "the live entry, not a second object for its row")
    }

    @Test func theFirstUseFindsChangesMadeElsewhereAndHereSinceTheParentWasRead() throws {
        let fixture = try storedSheets(3)
        let store = fixture.store!
        let sheets = try store.fetch(Sheet.self, orderBy: \.title)
        let (s1, s2) = (sheets[0], sheets[1])
        // Here, not written yet: an entry of s3 (read on its own) moves to s1.
        let moved = try #require(try store.fetch(Entry.self, where: "label = ?", ["s3-10"]).first)
        moved.sheet = s1
        moved.position = 5
        // Elsewhere, committed: a new entry for s1, one of s2 moves to s1, one of s1 is deleted.
        let other = try fixture.another()
        let s1ID = try #require(s1.persistentID)
        try other.execute("INSERT INTO Entry (sheet_id, position, amount, label) VALUES (?, 30, 7, 'new')", [.integer(s1ID)])
        try other.execute("UPDATE Entry SET sheet_id = ?, position = 15 WHERE label = 's2-20'", [.integer(s1ID)])
        try other.execute("DELETE FROM Entry WHERE label = 's1-20'")
        try store.refresh()
        #expect(s1.entries.map(\.label) == ["s3-10", "s1-10", "s2-20", "new"])
        #expect(s2.entries.map(\.label) == ["s2-10"])
        try store.flush()
        let rows = try other.rows("SELECT label FROM Entry WHERE sheet_id = ? ORDER BY position, id", [.integer(s1ID)])
        #expect(rows.map { $0.values } == [[.text("s3-10")], [.text("s1-10")], [.text("s2-20")], [.text("new")]])
    }

    @Test func aCollectionAssignedBeforeItWasReadReplacesTheStoredChildren() throws {
        let fixture = try storedSheets(2)
        let sheet = try #require(try fixture.store.fetch(Sheet.self, where: "title = 's1'").first)
        let entry = Entry()
        entry.label = "only"
        sheet.entries = [entry]                       // never read before
        try fixture.store.flush()
        let other = try fixture.another()
        let rows = try other.rows("SELECT label FROM Entry WHERE sheet_id = ? ORDER BY id", [.integer(sheet.persistentID!)])
        #expect(rows.map { $0.values } == [[.text("only")]], "the two stored entries left the sheet")
        #expect(sheet.entries.map(\.label) == ["only"])
    }

    @Test func anObservedTotalOverAnUnreadCollectionStartsFromTheRows() throws {
        let fixture = try storedSheets(2)
        let sheet = try #require(try fixture.store.fetch(Sheet.self, where: "title = 's2'").first)
        var totals: [Int] = []
        let subscription = observe(sheet, \.total).sink(next: { totals.append($0) })
        defer { subscription.dispose() }
        sheet.entries[0].amount = 10
        #expect(totals == [4, 12])
    }

    @Test func aCollectionThatCannotBeReadIsReportedLeftEmptyAndReadAgainAtItsNextUse() throws {
        let fixture = try storedSheets(2)
        let other = try fixture.another()
        try other.execute("UPDATE Entry SET amount = 'many' WHERE label = 's1-20'")
        let store = fixture.store!
        var errors: [String] = []
        let subscription = store.errors.sink(next: { errors.append("\($0)") })
        defer { subscription.dispose() }
        let sheet = try #require(try store.fetch(Sheet.self, where: "title = 's1'").first, "the sheet itself reads fine")
        #expect(sheet.entries.isEmpty)
        #expect(errors.count == 1 && errors[0].contains("Entry.amount"), "\(errors)")
        #expect(try other.rows("SELECT amount FROM Entry WHERE label = 's1-20'").map { $0.values } == [[.text("many")]])
        try other.execute("UPDATE Entry SET amount = 3 WHERE label = 's1-20'")
        try store.refresh()
        #expect(sheet.entries.map(\.amount) == [1, 3], "read again")
        #expect(errors.count == 1)
    }
}
