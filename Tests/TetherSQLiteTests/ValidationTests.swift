import Foundation
import TetherSQLite
import Testing

@Model
final class Gadget {
    var name = ""
    var code = ""
    var stock = 0
}
extension Gadget: PersistentModel {}
extension Gadget: Validating {
    func validate(_ rules: inout ValidationRules<Gadget>) {
        rules.check(\.name, "not empty", !name.isEmpty)
        rules.check(\.stock, "at most 1000", stock <= 1000)
    }
}

@Model
final class Part {
    var label = ""
    var price = 0
}
extension Part: PersistentModel {}
extension Part: Validating {
    func validate(_ rules: inout ValidationRules<Part>) {
        rules.check(\.label, "a priced part has a label", price == 0 || !label.isEmpty)
    }
}

/// Validation through the public API: the model's rules and the database's constraints.
@Suite("Validation: invalid changes are not written, the model keeps them, the error says why")
struct ValidationTests {
    let directory: String
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-validation-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/gadgets.sqlite"
    }

    private func gadget(_ name: String, code: String = "", stock: Int = 0) -> Gadget {
        let gadget = Gadget()
        gadget.name = name
        gadget.code = code
        gadget.stock = stock
        return gadget
    }

    /// The stored value, read by another connection.
    private func stored(_ column: String, id: Int64) throws -> SQLiteValue? {
        let connection = try Connection(path: path)
        return try connection.rows("SELECT \(column) FROM Gadget WHERE id = ?", [.integer(id)]).first?.values.first
    }

    @Test func aChangeThatBreaksARuleIsKeptBackAndReported() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scheduler = TestScheduler()
        let store = try Store(path: path, scheduler: scheduler, watchesExternalChanges: false)
        var errors: [String] = []
        let subscription = store.errors.sink { errors.append($0.description) }
        let drill = try store.insert(gadget("drill", stock: 5))
        let id = try #require(drill.persistentID)

        drill.stock = 5000
        scheduler.advance()                 // the end of the turn: not written
        drill.name = ""                     // still invalid, one more rule broken
        scheduler.advance()
        #expect(try stored("stock", id: id) == .integer(5))
        #expect(drill.stock == 5000, "the model keeps what it was given")
        #expect(store.pendingRowCount == 1)
        let error = #expect(throws: StoreError.self) { try store.flush() }
        guard case .invalid(let invalid)? = error else { Issue.record("expected .invalid, got \(String(describing: error))"); return }
        #expect(invalid.failures == [.init(property: "name", rule: "not empty"), .init(property: "stock", rule: "at most 1000")])
        #expect(invalid.failures(of: "stock").map(\.rule) == ["at most 1000"])
        #expect(errors == [
            "not written, invalid: Gadget \(id): stock: at most 1000",
            "not written, invalid: Gadget \(id): name: not empty; stock: at most 1000",
        ], "each new set of failures is reported once")

        drill.name = "drill"
        drill.stock = 900
        try store.flush()
        #expect(try stored("stock", id: id) == .integer(900))
        #expect(store.pendingRowCount == 0)
        subscription.dispose()
        try store.close()
    }

    /// A change kept back because the row broke a rule is written at the end of the turn in
    /// which another program's change made the row valid, not left until the next edit here.
    @Test func aChangeMadeValidByAnotherProgramIsWrittenAtTheEndOfThatTurn() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scheduler = TestScheduler()
        let store = try Store(path: path, scheduler: scheduler, watchesExternalChanges: false)
        let part = try store.insert(Part())
        let id = try #require(part.persistentID)
        part.price = 5
        scheduler.advance()                                     // kept back: no label
        #expect(store.pendingRowCount == 1)
        try Connection(path: path).execute("UPDATE Part SET label = 'bolt'")
        try store.refresh()                                     // the label arrives
        #expect(part.label == "bolt" && part.brokenRules.isEmpty)
        scheduler.advance()                                     // the end of that turn
        try store.refresh()                                     // its commit is done
        let price = try Connection(path: path).rows("SELECT price FROM Part WHERE id = ?", [.integer(id)]).first?.values.first
        #expect(price == .integer(5))
        #expect(store.pendingRowCount == 0)
        try store.close()
    }

    @Test func brokenRulesSayWhatIsWrongBeforeAnyWrite() {
        // What a form shows beside its fields as the user types: the same rules the store checks.
        let drill = gadget("drill", stock: 5)
        #expect(drill.brokenRules.isEmpty)
        drill.stock = 5000
        drill.name = ""
        #expect(drill.brokenRules == [.init(property: "name", rule: "not empty"), .init(property: "stock", rule: "at most 1000")])
        #expect(drill.brokenRules.map(\.description) == ["name: not empty", "stock: at most 1000"])
        drill.name = "drill"
        drill.stock = 1000
        #expect(drill.brokenRules.isEmpty)
    }

    @Test func anInvalidModelIsNotInserted() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let error = #expect(throws: StoreError.self) { try store.insert(contentsOf: [gadget("saw"), gadget("")]) }
        #expect(error == .invalid(ValidationError(model: "Gadget", id: nil, failures: [.init(property: "name", rule: "not empty")])))
        #expect(try store.count(Gadget.self) == 0, "none of the batch was inserted")
        try store.close()
    }

    /// A UNIQUE index the database has (made by another program): the row that breaks it is
    /// left out of its batch and kept pending; the rest of the batch is written.
    @Test func aDatabaseConstraintIsMappedToThePropertyAndTheRestIsWritten() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scheduler = TestScheduler()
        let store = try Store(path: path, scheduler: scheduler, watchesExternalChanges: false)
        let a = try store.insert(gadget("a", code: "A-1"))
        let b = try store.insert(gadget("b", code: "B-1"))
        try Connection(path: path).execute("CREATE UNIQUE INDEX gadget_code ON Gadget(code)")

        b.code = "A-1"        // breaks the index
        a.stock = 7           // fine: written in the same batch
        let error = #expect(throws: StoreError.self) { try store.flush() }
        #expect(error == .invalid(ValidationError(model: "Gadget", id: b.persistentID, failures: [.init(property: "code", rule: "UNIQUE")])))
        #expect(try stored("stock", id: a.persistentID!) == .integer(7))
        #expect(try stored("code", id: b.persistentID!) == .text("B-1"))
        #expect(b.code == "A-1")

        b.code = "B-2"
        try store.flush()
        #expect(try stored("code", id: b.persistentID!) == .text("B-2"))
        try store.close()
    }

    /// A CHECK constraint of a table another program made: named with the column it tests.
    @Test func aCheckConstraintNamesItsColumn() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Connection(path: path).execute("""
            CREATE TABLE "Gadget" (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', code TEXT NOT NULL DEFAULT '',
                                   stock INTEGER NOT NULL DEFAULT 0 CHECK (stock >= 0))
            """)
        let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let saw = try store.insert(gadget("saw", stock: 1))
        saw.stock = -3
        let error = #expect(throws: StoreError.self) { try store.flush() }
        #expect(error == .invalid(ValidationError(model: "Gadget", id: saw.persistentID, failures: [.init(property: "stock", rule: "CHECK stock >= 0")])))
        let inserting = #expect(throws: StoreError.self) { try store.insert(gadget("hammer", stock: -1)) }
        #expect(inserting == .invalid(ValidationError(model: "Gadget", id: nil, failures: [.init(property: "stock", rule: "CHECK stock >= 0")])))
        saw.stock = 2
        try store.close()
        #expect(try stored("stock", id: saw.persistentID!) == .integer(2))
    }
}
