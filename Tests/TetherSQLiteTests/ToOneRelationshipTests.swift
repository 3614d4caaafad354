import Foundation
import Testing
@testable import TetherSQLite

@Model
final class Client {
    var name = ""
}
extension Client: PersistentModel {}

@Model
final class Bill {
    var number = 0
    var client: Client? = nil
    var clientName: String { client?.name ?? "-" }
}
extension Bill: PersistentModel {}

@Suite("To-one relationships")
struct ToOneRelationshipTests {
    @Test func theColumnReferencesTheTableAndIsIndexed() throws {
        let definition = try TableDefinition(for: Bill.self, defaultsFrom: Bill())
        #expect(definition.columns.map(\.sql) == [
            "number INTEGER NOT NULL DEFAULT 0",
            "client_id INTEGER REFERENCES Client(id) ON DELETE SET NULL",
        ])
        let statements = try definition.migrationStatements(existing: [])
        #expect(statements.last == "CREATE INDEX IF NOT EXISTS Bill_client_id ON Bill(client_id)")
    }

    /// Written as the row's id; read back, in another store, as that store's live model of the
    /// row: one query for all the bills' clients.
    @Test func writtenAsAnIdAndReadAsTheLiveModel() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ada = try store.insert(Client())
        ada.name = "Ada"
        let grace = try store.insert(Client())
        grace.name = "Grace"
        for number in 1...6 {
            let bill = Bill()
            bill.number = number
            bill.client = number.isMultiple(of: 2) ? ada : (number == 5 ? nil : grace)
            try store.insert(bill)
        }
        try store.flush()

        let other = try Store(path: fixture.path, scheduler: TestScheduler(), watchesExternalChanges: false)
        _ = try other.fetch(Bill.self, where: "id < 0")       // the tables are set up: not counted
        let log = SQLLog()
        other.writer.sync { connection in connection.trace { log.append($0) } }
        let bills = try other.fetch(Bill.self, orderBy: \.number)
        #expect(bills.map(\.clientName) == ["Grace", "Ada", "Grace", "Ada", "-", "Ada"])
        #expect(bills[1].client === bills[3].client, "one live object per row")
        #expect(try other.load(Client.self, id: ada.persistentID!) === bills[1].client)
        #expect(log.statements.filter { $0.hasPrefix("SELECT") }.count == 2, "the bills, then their clients: \(log.statements)")
        #expect(other.pendingRowCount == 0, "reading relationships writes nothing back")
        try other.close()
    }

    /// Changed elsewhere, the relationship follows: observers of a path through it see the change.
    @Test func aChangeElsewhereReachesThePath() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ada = try store.insert(Client())
        ada.name = "Ada"
        let grace = try store.insert(Client())
        grace.name = "Grace"
        let bill = Bill()
        bill.client = ada
        try store.insert(bill)
        try store.flush()
        fixture.log.clear()
        let (names, _) = record(observe(bill, \.clientName))

        try fixture.another().execute("UPDATE Bill SET client_id = ? WHERE id = ?", [.integer(grace.persistentID!), .integer(bill.persistentID!)])
        try store.refresh()
        #expect(bill.client === grace)
        try fixture.another().execute("UPDATE Client SET name = 'Grace H.' WHERE id = ?", [.integer(grace.persistentID!)])
        try store.refresh()
        #expect(names.values == ["Ada", "Grace", "Grace H."])
        #expect(fixture.updates.isEmpty, "nothing written back")
    }

    /// Deleting the related row sets the relationship to nil, here and in another store.
    @Test func deletingTheRelatedRowNullifies() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ada = try store.insert(Client())
        let bill = Bill()
        bill.client = ada
        try store.insert(bill)
        try store.flush()
        let other = try Store(path: fixture.path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let theirs = try #require(try other.load(Bill.self, id: bill.persistentID!))
        #expect(theirs.client != nil)

        try store.delete(ada)
        #expect(bill.client == nil)
        try other.refresh()
        #expect(theirs.client == nil)
        #expect(try fixture.another().rows("SELECT client_id FROM Bill").first?[0] == .null)
        try other.close()
    }

    /// A related model that is not stored yet cannot be written: the error says so; the change
    /// stays pending until it is inserted.
    @Test func aRelatedModelNotInsertedYetIsAnError() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let bill = try store.insert(Bill())
        try store.flush()
        let newcomer = Client()
        bill.client = newcomer
        let error = #expect(throws: StoreError.self) { try store.flush() }
        #expect(error?.description.contains("client: SQLITE_MISMATCH (20): column client_id holds a Client that is not stored (insert it first)") == true)
        #expect(store.pendingRowCount == 1, "kept, not dropped")
        try store.insert(newcomer)
        try store.flush()                 // written now, without touching the bill again
        #expect(try fixture.another().rows("SELECT client_id FROM Bill").first?[0] == .integer(newcomer.persistentID!))
    }

    /// A table made before the relationship existed gets its column (NULL for the old rows) and
    /// index; the old rows' relationship is nil.
    @Test func anExistingTableGetsTheColumn() throws {
        let fixture = try StoreFixture()
        fixture.close()
        try fixture.another().execute("CREATE TABLE Bill (id INTEGER PRIMARY KEY, number INTEGER NOT NULL DEFAULT 0)")
        try fixture.another().execute("INSERT INTO Bill (number) VALUES (7)")
        try fixture.open()
        let store = fixture.store!
        let old = try #require(try store.fetch(Bill.self).first)
        #expect(old.number == 7 && old.client == nil)
        let client = try store.insert(Client())
        old.client = client
        try store.flush()
        let indexes = try fixture.another().rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Bill'")
        #expect(indexes.map { $0[0] } == [.text("Bill_client_id")])
        #expect(try fixture.another().rows("SELECT client_id FROM Bill").first?[0] == .integer(client.persistentID!))
    }
}

extension ToOneRelationshipTests {
    /// The store's index of which parent each child row was placed in keeps only children in
    /// memory once it grows: visiting 10,000 children of 10 parents, one parent at a time, does
    /// not leave 10,000 entries behind.
    @Test func theIndexOfChildrenKeepsOnlyThoseInMemory() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        for number in 0..<10 {
            let sheet = Sheet()
            sheet.title = "s\(number)"
            sheet.entries = (0..<1_000).map { _ in Entry() }
            try store.insert(sheet)
            try store.flush()
        }
        #expect(store.state.parentOf.count > 0)
        #expect(store.state.parentOf.count <= 4_096, "entries of children no longer in memory are dropped")
    }
}
