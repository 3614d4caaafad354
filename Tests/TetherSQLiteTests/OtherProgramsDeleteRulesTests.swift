import Foundation
import Testing
import TetherSQLite   // the public API only

/// A tree whose children are deleted with their parent.
@Model
final class Node {
    var name = ""
    @Relationship(inverse: \Node.parent, deleteRule: .cascade) var children: [Node] = []
    @Relationship var parent: Node?
}
extension Node: PersistentModel {}

/// A tree whose children outlive their parent, as roots.
@Model
final class Branch {
    var name = ""
    @Relationship(inverse: \Branch.parent, deleteRule: .nullify) var children: [Branch] = []
    @Relationship var parent: Branch?
}
extension Branch: PersistentModel {}

/// A tree whose parent cannot be deleted while it has children.
@Model
final class Step {
    var name = ""
    @Relationship(inverse: \Step.parent, deleteRule: .deny) var children: [Step] = []
    @Relationship var parent: Step?
}
extension Step: PersistentModel {}

/// Runs `sql` in the sqlite3 shell on `path`: another program, with the shell's own settings
/// (foreign keys off, recursive triggers off). Returns what it printed; a failure is thrown.
@discardableResult
func sqliteShell(_ path: String, _ sql: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3", "-batch", "-bail", path, sql]
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    let complaint = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw ShellError(message: String(decoding: complaint, as: UTF8.self) + " (sqlite3 exited \(process.terminationStatus); the tests need the sqlite3 shell: apt install sqlite3)")
    }
    return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

struct ShellError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The delete rules hold when another program deletes: the sqlite3 shell, with its foreign keys
/// off and its recursive triggers off, deleting a to-one's target or the root of a tree three
/// levels deep. The rows and the live models both follow.
@Suite("Delete rules, for every program")
struct OtherProgramsDeleteRulesTests {
    @Test func theShellDeletingAToOnesTargetSetsTheRowAndTheLiveModelToNil() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ada = Client(), grace = Client()
        ada.name = "Ada"
        grace.name = "Grace"
        let purchase = Bill(), other = Bill()
        purchase.number = 1
        purchase.client = ada
        other.number = 2
        other.client = grace
        try store.insert(contentsOf: [grace, ada])   // Ada has the last id: the next row takes it back
        try store.insert(contentsOf: [purchase, other])
        try store.flush()
        let adaID = try #require(ada.persistentID)
        var names: [String] = []
        let observation = observe(purchase, \.clientName).sink(next: { names.append($0) })

        try sqliteShell(fixture.path, "DELETE FROM Client WHERE id = \(adaID)")
        #expect(try sqliteShell(fixture.path, "SELECT quote(client_id) FROM Bill WHERE number = 1") == "NULL",
                "the row no longer names the deleted client")
        try store.refresh()
        #expect(ada.persistentID == nil)
        #expect(purchase.client == nil, "the live model no longer holds the deleted client")
        #expect(other.client === grace, "another purchase keeps its client")
        #expect(names == ["Ada", "-"])

        // The shell's next client may take the id back: nobody reads it as theirs.
        try sqliteShell(fixture.path, "INSERT INTO Client (name) VALUES ('Stranger')")
        fixture.close()
        try fixture.open()
        let reopened = try fixture.store.fetch(Bill.self).first { $0.number == 1 }
        #expect(reopened?.client == nil)
        observation.dispose()
    }

    @Test func theShellDeletingTheRootOfACascadingTreeDeletesEveryLevel() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        func node(_ name: String, _ children: [Node] = []) -> Node {
            let node = Node()
            node.name = name
            node.children = children
            return node
        }
        let leaf = node("great-grandchild")
        let grandchild = node("grandchild", [leaf])
        let child = node("child", [grandchild, node("child's sibling leaf")])
        let root = node("root", [child])
        let keeper = node("another tree", [node("its child")])
        try store.insert(contentsOf: [root, keeper])
        try store.flush()
        let rootID = try #require(root.persistentID)

        try sqliteShell(fixture.path, "DELETE FROM Node WHERE id = \(rootID)")
        #expect(try sqliteShell(fixture.path, "SELECT group_concat(name, ',') FROM (SELECT name FROM Node ORDER BY name)") == "another tree,its child")
        #expect(try sqliteShell(fixture.path, "SELECT count(*) FROM Node WHERE parent_id IS NOT NULL AND parent_id NOT IN (SELECT id FROM Node)") == "0",
                "no row names a deleted parent")
        try store.refresh()
        #expect([root, child, grandchild, leaf].allSatisfy { $0.persistentID == nil }, "every level is deleted in memory too")
        #expect(keeper.persistentID != nil && keeper.children.map(\.name) == ["its child"])
    }

    @Test func theShellDeletingTheRootOfANullifyingTreeLeavesItsChildrenAsRoots() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let grandchild = Branch(), child = Branch(), root = Branch()
        (grandchild.name, child.name, root.name) = ("grandchild", "child", "root")
        child.children = [grandchild]
        root.children = [child]
        try store.insert(root)
        try store.flush()
        let rootID = try #require(root.persistentID)

        try sqliteShell(fixture.path, "DELETE FROM Branch WHERE id = \(rootID)")
        #expect(try sqliteShell(fixture.path, "SELECT name || ':' || quote(parent_id) FROM Branch WHERE name = 'child'") == "child:NULL")
        try store.refresh()
        #expect(root.persistentID == nil)
        #expect(child.parent == nil && child.persistentID != nil)
        #expect(grandchild.parent === child, "one level only: the grandchild keeps its parent")
    }

    @Test func theShellCannotDeleteAParentADenyingTreeStillHas() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let grandchild = Step(), child = Step(), root = Step()
        (grandchild.name, child.name, root.name) = ("grandchild", "child", "root")
        child.children = [grandchild]
        root.children = [child]
        try store.insert(root)
        try store.flush()

        #expect(throws: ShellError.self) { try sqliteShell(fixture.path, "DELETE FROM Step WHERE id = \(child.persistentID!)") }
        #expect(try sqliteShell(fixture.path, "SELECT count(*) FROM Step") == "3")
        try sqliteShell(fixture.path, "DELETE FROM Step WHERE id = \(grandchild.persistentID!)")
        try store.refresh()
        #expect(grandchild.persistentID == nil && child.children.isEmpty)
    }

    /// A file made before a rule's trigger existed (here: the trigger dropped) opens read-only
    /// all the same: a store that may not write does not make the trigger, and reads as usual;
    /// the next store that may write makes it.
    @Test func aReadOnlyStoreOnAFileWithoutTheTriggerReadsItAndAWritableOneMakesIt() throws {
        let fixture = try StoreFixture()
        let client = Client()
        client.name = "Ada"
        try fixture.store.insert(client)
        let bill = Bill()
        bill.client = client
        try fixture.store.insert(bill)
        try fixture.store.flush()
        fixture.close()
        try sqliteShell(fixture.path, "DROP TRIGGER tether_Bill_client_id_nullify")
        let viewer = try Store(path: fixture.path, scheduler: TestScheduler(), watchesExternalChanges: false, readOnly: true)
        #expect(try viewer.fetch(Bill.self).first?.client?.name == "Ada")
        #expect(try sqliteShell(fixture.path, "SELECT count(*) FROM sqlite_master WHERE name = 'tether_Bill_client_id_nullify'") == "0")
        try viewer.close()
        try fixture.open()
        _ = try fixture.store.fetch(Bill.self)
        #expect(try sqliteShell(fixture.path, "SELECT count(*) FROM sqlite_master WHERE name = 'tether_Bill_client_id_nullify'") == "1")
    }

    /// Another program makes a tree a cycle (a node's parent is its own grandchild): deleting a
    /// node of it, by the shell or by the store, deletes the whole cycle and ends.
    @Test func aCycleAnotherProgramMadeIsDeletedWholeAndTheDeleteEnds() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let a = Node(), b = Node(), c = Node()
        (a.name, b.name, c.name) = ("a", "b", "c")
        a.children = [b]
        b.children = [c]
        try store.insert(a)
        try store.flush()
        // The shell makes a cycle: a's parent is c.
        try sqliteShell(fixture.path, "UPDATE Node SET parent_id = \(c.persistentID!) WHERE id = \(a.persistentID!)")
        try store.refresh()
        #expect(a.parent === c)
        #expect(c.children.map(\.name) == ["a"])
        try sqliteShell(fixture.path, "DELETE FROM Node WHERE id = \(b.persistentID!)")
        try store.refresh()
        #expect(try sqliteShell(fixture.path, "SELECT count(*) FROM Node") == "0")
        #expect([a, b, c].allSatisfy { $0.persistentID == nil })
        // And the store's own delete of a cycle.
        let x = Node(), y = Node()
        x.children = [y]
        try store.insert(x)
        try store.flush()
        try sqliteShell(fixture.path, "UPDATE Node SET parent_id = \(y.persistentID!) WHERE id = \(x.persistentID!)")
        try store.refresh()
        try store.delete(y)
        #expect(try sqliteShell(fixture.path, "SELECT count(*) FROM Node") == "0")
        #expect(x.persistentID == nil)
    }
}
