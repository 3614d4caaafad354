import Foundation
import Testing
@testable import TetherSQLite

/// A model with more properties than a registrar has bits (70: properties 63 and up share the
/// last bit of `ModelRegistrar.pendingColumns`).
@Model
final class WideRow {
    var p0 = 0
    var p1 = 0
    var p2 = 0
    var p3 = 0
    var p4 = 0
    var p5 = 0
    var p6 = 0
    var p7 = 0
    var p8 = 0
    var p9 = 0
    var p10 = 0
    var p11 = 0
    var p12 = 0
    var p13 = 0
    var p14 = 0
    var p15 = 0
    var p16 = 0
    var p17 = 0
    var p18 = 0
    var p19 = 0
    var p20 = 0
    var p21 = 0
    var p22 = 0
    var p23 = 0
    var p24 = 0
    var p25 = 0
    var p26 = 0
    var p27 = 0
    var p28 = 0
    var p29 = 0
    var p30 = 0
    var p31 = 0
    var p32 = 0
    var p33 = 0
    var p34 = 0
    var p35 = 0
    var p36 = 0
    var p37 = 0
    var p38 = 0
    var p39 = 0
    var p40 = 0
    var p41 = 0
    var p42 = 0
    var p43 = 0
    var p44 = 0
    var p45 = 0
    var p46 = 0
    var p47 = 0
    var p48 = 0
    var p49 = 0
    var p50 = 0
    var p51 = 0
    var p52 = 0
    var p53 = 0
    var p54 = 0
    var p55 = 0
    var p56 = 0
    var p57 = 0
    var p58 = 0
    var p59 = 0
    var p60 = 0
    var p61 = 0
    var p62 = 0
    var p63 = 0
    var p64 = 0
    var p65 = 0
    var p66 = 0
    var p67 = 0
    var p68 = 0
    var p69 = 0
}
extension WideRow: PersistentModel {}

/// A model whose rules change it: a label's key is its name in lower case.
@Model
final class Label {
    var name = ""
    var key = ""
}
extension Label: PersistentModel {}
extension Label: Validating {
    func validate(_ rules: inout ValidationRules<Label>) {
        if key != name.lowercased() { key = name.lowercased() }
        rules.check(\.name, "not empty", !name.isEmpty)
    }
}

/// The marks of pending columns in a stored model's registrar (`ModelRegistrar.pendingColumns`),
/// which a set reads instead of looking its row up: whatever marks a column pending, every
/// change is written.
@Suite("Store: the registrar's marks of pending columns")
struct PendingMarksTests {
    func stored(_ fixture: StoreFixture, _ id: Int64, _ column: String) throws -> Int64? {
        guard case .integer(let value)? = try fixture.another().rows("SELECT \(column) FROM WideRow WHERE id = ?", [.integer(id)]).first?.values[0] else { return nil }
        return value
    }

    @Test func everyChangeOfAWideRowIsWritten() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let row = try store.insert(WideRow())
        try store.flush()
        let id = try #require(row.persistentID)
        // Two properties that share the last bit, then one that has its own.
        row.p64 = 1
        row.p69 = 2
        row.p3 = 3
        row.p64 = 4
        #expect(store.pendingRowCount == 1)
        try store.flush()
        #expect(try [stored(fixture, id, "p64"), stored(fixture, id, "p69"), stored(fixture, id, "p3")] == [4, 2, 3])
        // Once written, each of them is written again when it changes again.
        row.p69 = 5
        try store.flush()
        row.p63 = 6
        row.p62 = 7
        try store.flush()
        #expect(try [stored(fixture, id, "p69"), stored(fixture, id, "p63"), stored(fixture, id, "p62")] == [5, 6, 7])
        #expect(row._$registrar.pendingColumns.load(ordering: .relaxed) == 0, "nothing pending, nothing marked")
    }

    /// Rules are the app's code, and may change the model they check while its row is taken
    /// for a commit: that change is a new pending row, marked as such, and the changes after it
    /// are written too.
    @Test func aChangeMadeByTheModelsOwnRulesWhileItsRowIsTakenStaysPendingAndMarked() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let label = Label()
        label.name = "a"
        try store.insert(label)
        try store.flush()
        let id = try #require(label.persistentID)
        let object = ObjectIdentifier(label)
        func row() throws -> [SQLiteValue]? {
            try fixture.another().rows("SELECT name, key FROM Label WHERE id = ?", [.integer(id)]).first?.values
        }

        label.name = "Ab"
        // The end of a turn's commit, alone: its rules set the key as the row is taken.
        try store.commitPending(synchronously: false)
        #expect(label.key == "ab")
        #expect(store.state.dirty[object]?.columns.marks == 2, "the key, pending for the next commit")
        #expect(label._$registrar.pendingColumns.load(ordering: .relaxed) == 2, "and marked")
        label.key = "x"            // changed again before the next commit
        try store.flush()
        #expect(try row() == [.text("Ab"), .text("ab")], "the rules ran again")
        label.name = "Cd"
        try store.flush()
        #expect(try row() == [.text("Cd"), .text("cd")])
        #expect(store.pendingRowCount == 0 && label._$registrar.pendingColumns.load(ordering: .relaxed) == 0)
    }
}
