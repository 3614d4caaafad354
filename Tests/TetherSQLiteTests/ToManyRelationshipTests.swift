import Foundation
import Testing
import TetherSQLite   // the public API only, as a user's package sees it

@Model
final class Sheet {
    var title = ""
    @Relationship(inverse: \Entry.sheet, deleteRule: .cascade, orderBy: \Entry.position)
    var entries: [Entry] = []
    var total: Int { entries.reduce(0) { $0 + $1.amount } }
}
extension Sheet: PersistentModel {}

@Model
final class Entry {
    @Relationship var sheet: Sheet?
    var position = 0
    var amount = 0
    var label = ""
}
extension Entry: PersistentModel {}

@Model
final class Keeper {
    var name = ""
    @Relationship(inverse: \Pet.keeper, deleteRule: .deny) var pets: [Pet] = []
}
extension Keeper: PersistentModel {}

@Model
final class Pet {
    @Relationship var keeper: Keeper?
    var name = ""
}
extension Pet: PersistentModel {}

@Model
final class Shelf {
    var room = ""
    @Relationship(inverse: \Book.shelf) var books: [Book] = []
}
extension Shelf: PersistentModel {}

@Model
final class Book {
    @Relationship var shelf: Shelf?
    var title = ""
}
extension Book: PersistentModel {}

@Model
final class Basket {
    @Relationship(inverse: \Fruit.basket) var fruits: [Fruit] = []
}
extension Basket: PersistentModel {}

@Model
final class Fruit {
    @Relationship var basket: Basket?
    var name = ""
}
extension Fruit: Validating {
    func validate(_ rules: inout ValidationRules<Fruit>) {
        rules.check(\.name, "not empty", !name.isEmpty)
    }
}

/// A to-many relationship whose inverse is a plain (strong) reference: refused, with a message
/// that says what to write.
@Model
final class Crate {
    @Relationship(inverse: \Bottle.crate) var bottles: [Bottle] = []
}
extension Crate: PersistentModel {}

@Model
final class Bottle {
    var crate: Crate? = nil
}
extension Bottle: PersistentModel {}

/// A sheet with entries of the given amounts, at positions 10, 20, ... (not stored).
private func sheet(_ title: String, _ amounts: [Int]) -> Sheet {
    let sheet = Sheet()
    sheet.title = title
    sheet.entries = amounts.enumerated().map { index, amount in
        let entry = Entry()
        entry.position = (index + 1) * 10
        entry.amount = amount
        entry.label = "\(title)\(index + 1)"
        return entry
    }
    return sheet
}

private func labels(_ sheet: Sheet) -> [String] { sheet.entries.map(\.label) }

/// Sheet a with one entry and sheet b with none, both written, and what `store` reports on
/// `errors` from then on: where the tests of a move to a parent deleted elsewhere start.
private func twoSheets(_ store: Store) throws -> (a: Sheet, b: Sheet, entry: Entry, bID: Int64, errors: History<StoreError>) {
    let a = try store.insert(sheet("a", [1]))
    let b = try store.insert(sheet("b", []))
    try store.flush()
    let (errors, _) = record(store.errors)
    return (a, b, a.entries[0], try #require(b.persistentID), errors)
}

/// Has another program move the first entry this store inserts, from within the insert (see
/// `aChildMovedElsewhereWhileItsParentIsInsertedEndsWhereItsRowSays`).
@Model
final class Mover {
    @Transient var store: Store?
    @Transient var other: Connection?
    @Transient var parentID: Int64 = 0
    /// The table whose insert it waits for.
    @Transient var table = ""
    @Transient var moved = false
}

@Suite("To-many relationships")
struct ToManyRelationshipTests {
    /// Inserting a parent inserts the children in its collection, naming it; a second store
    /// loads the parent with its children, in the declared order, with one query for them.
    @Test func insertingAParentInsertsItsChildrenAndAnotherStoreLoadsThemInOrder() throws {
        let fixture = try StoreFixture()
        let first = sheet("a", [5, 7, 9])
        first.entries[0].position = 40   // out of order on purpose
        try fixture.store.insert(first)
        #expect(first.entries.allSatisfy { $0.persistentID != nil && $0.sheet === first })
        #expect(labels(first) == ["a2", "a3", "a1"], "put in the declared order")
        try fixture.store.flush()
        let rows = try fixture.another().rows("SELECT sheet_id, label FROM Entry ORDER BY id")
        #expect(rows.map { $0.values } == [[.integer(first.persistentID!), .text("a1")],
                                          [.integer(first.persistentID!), .text("a2")],
                                          [.integer(first.persistentID!), .text("a3")]])

        let other = try Store(path: fixture.path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let loaded = try #require(try other.load(Sheet.self, id: first.persistentID!))
        #expect(labels(loaded) == ["a2", "a3", "a1"])
        #expect(loaded.total == 21)
        #expect(loaded.entries.allSatisfy { $0.sheet === loaded })
    }

    /// Loading many parents costs one query for all their children (not one per parent).
    @Test func loadingParentsReadsTheirChildrenWithOneQuery() throws {
        let fixture = try StoreFixture()
        try fixture.store.insert(contentsOf: (1...20).map { sheet("s\($0)", [$0, $0]) })
        try fixture.store.flush()
        fixture.close()
        try fixture.open()
        fixture.log.clear()
        let sheets = try fixture.store.fetch(Sheet.self)
        #expect(sheets.count == 20)
        #expect(sheets.allSatisfy { $0.entries.count == 2 && $0.total == 2 * Int($0.title.dropFirst())! })
        let selects = fixture.log.statements.filter { $0.hasPrefix("SELECT") && $0.contains("Entry") }
        #expect(selects.count == 1, "the children of all the sheets, in one query: \(selects)")
    }

    /// Here: a child inserted, given another parent, moved in the order or deleted changes the
    /// collections, and `observe` of the collection and of a computed total over it send each
    /// change once.
    @Test func childrenChangedHereKeepTheCollectionsInStep() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let a = sheet("a", [1, 2])
        let b = sheet("b", [100])
        try store.insert(contentsOf: [a, b])
        let (totals, _) = record(observe(a, \.total))
        let (collections, _) = record(observe(a, \.entries).map { $0.map(\.label) })

        let added = Entry()
        added.label = "a3"
        added.position = 15
        added.amount = 4
        added.sheet = a
        try store.insert(added)
        #expect(labels(a) == ["a1", "a3", "a2"])

        added.position = 99
        #expect(labels(a) == ["a1", "a2", "a3"])

        let moved = a.entries[0]
        moved.sheet = b
        #expect(labels(a) == ["a2", "a3"])
        #expect(labels(b) == ["a1", "b1"], "same position: by id")

        try store.delete(a.entries[0])
        #expect(labels(a) == ["a3"])
        added.amount = 40
        try store.flush()

        #expect(totals.values == [3, 7, 6, 4, 40])
        #expect(collections.values == [["a1", "a2"], ["a1", "a3", "a2"], ["a1", "a2", "a3"], ["a2", "a3"], ["a3"]])
        let rows = try fixture.another().rows("SELECT label, sheet_id FROM Entry ORDER BY label")
        #expect(rows.map { $0.values } == [[.text("a1"), .integer(b.persistentID!)], [.text("a3"), .integer(a.persistentID!)],
                                          [.text("b1"), .integer(b.persistentID!)]])
    }

    /// Changing the collection itself: an appended child (not stored yet) is inserted and names
    /// the parent; a removed one names nothing; both are written.
    @Test func appendingToAndRemovingFromTheCollectionSetsTheInverse() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let a = try store.insert(sheet("a", [1, 2]))
        let fresh = Entry()
        fresh.label = "new"
        fresh.position = 5
        a.entries.append(fresh)
        #expect(fresh.persistentID != nil)
        #expect(fresh.sheet === a)
        #expect(labels(a) == ["new", "a1", "a2"], "in the declared order")
        let removed = a.entries.removeLast()
        #expect(removed.sheet == nil)
        #expect(labels(a) == ["new", "a1"])
        try store.flush()
        let rows = try fixture.another().rows("SELECT label, sheet_id FROM Entry ORDER BY label")
        #expect(rows.map { $0.values } == [[.text("a1"), .integer(a.persistentID!)], [.text("a2"), .null],
                                          [.text("new"), .integer(a.persistentID!)]])
    }

    /// Appending a child that sorts into the middle, new or taken from another parent, is one
    /// change of each collection, already in the declared order: observers never see the
    /// collection in the order of the append.
    @Test func anAppendIsOneChangeInTheDeclaredOrder() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let a = try store.insert(sheet("a", [1, 2]))
        let b = try store.insert(sheet("b", [7, 8, 9]))
        try store.flush()
        let (seenA, observingA) = record(observe(a, \.entries).map { $0.map(\.label) })
        let (seenB, observingB) = record(observe(b, \.entries).map { $0.map(\.label) })
        let (totals, observingTotal) = record(observe(a, \.total))

        let fresh = Entry()
        fresh.label = "new"
        fresh.position = 15
        fresh.amount = 100
        a.entries.append(fresh)
        #expect(seenA.values == [["a1", "a2"], ["a1", "new", "a2"]])
        #expect(totals.values == [3, 103])

        let moved = b.entries[1]   // b2, at 20
        moved.position = 12
        a.entries.append(moved)
        #expect(seenA.values.last == ["a1", "b2", "new", "a2"])
        #expect(seenA.values.count == 3, "one change for the move: \(seenA.values)")
        #expect(seenB.values == [["b1", "b2", "b3"], ["b1", "b3"]])
        #expect(totals.values == [3, 103, 111])
        try store.flush()
        #expect(try fixture.another().rows("SELECT label FROM Entry WHERE sheet_id = \(a.persistentID!) ORDER BY position").map(\.values)
                == [[.text("a1")], [.text("b2")], [.text("new")], [.text("a2")]])
        observingA.dispose()
        observingB.dispose()
        observingTotal.dispose()
    }

    /// The delete rules, here: cascade deletes the children (their models are deleted too),
    /// nullify leaves them without a parent, deny refuses and names the children in the way.
    @Test func deleteRulesCascadeNullifyAndDeny() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let a = try store.insert(sheet("a", [1, 2]))
        let entries = a.entries
        try store.delete(a)
        #expect(entries.allSatisfy { $0.persistentID == nil })
        #expect(try store.count(Entry.self) == 0)

        let shelf = try store.insert(Shelf())
        let book = Book()
        book.title = "Dune"
        shelf.books = [book]
        try store.delete(shelf)
        #expect(book.persistentID != nil && book.shelf == nil)
        #expect(try fixture.another().rows("SELECT shelf_id FROM Book").map { $0.values } == [[.null]])

        let keeper = try store.insert(Keeper())
        let cat = Pet(), dog = Pet()
        keeper.pets = [cat, dog]
        let error = #expect(throws: StoreError.self) { try store.delete(keeper) }
        #expect(error == .deleteDenied(model: "Keeper", id: keeper.persistentID!, relationship: "pets", related: "Pet",
                                       blocking: [cat.persistentID!, dog.persistentID!]))
        #expect(keeper.persistentID != nil && keeper.pets.count == 2)
        #expect(try store.count(Keeper.self) == 1)
        keeper.pets = []
        try store.delete(keeper)
        #expect(try store.count(Keeper.self) == 0 && store.count(Pet.self) == 2)
    }

    /// An inverse that is not marked `@Relationship` would keep its parent alive while the
    /// parent's collection holds it (a retain cycle): the store refuses the model type and says
    /// what to write.
    @Test func anInverseThatHoldsItsParentStronglyIsRefused() throws {
        let fixture = try StoreFixture()
        let error = #expect(throws: StoreError.self) { try fixture.store.insert(Crate()) }
        let message = "\(error.map { "\($0)" } ?? "")"
        #expect(message.contains("Crate.bottles") && message.contains("@Relationship var crate: Crate?"), "\(message)")
    }

    /// Children inserted with their parent, or appended to its collection, are held to their
    /// rules: an invalid child keeps its parent and its siblings out of the database, and one
    /// appended later is not written and is reported on `errors`.
    @Test func childrenInsertedThroughACollectionAreValidated() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let basket = Basket()
        let apple = Fruit(), nameless = Fruit()
        apple.name = "apple"
        basket.fruits = [apple, nameless]
        let error = #expect(throws: StoreError.self) { try store.insert(basket) }
        #expect(error == .invalid(ValidationError(model: "Fruit", id: nil, failures: [.init(property: "name", rule: "not empty")])))
        #expect(basket.persistentID == nil && apple.persistentID == nil)
        #expect(try store.count(Basket.self) == 0 && store.count(Fruit.self) == 0)

        basket.fruits = [apple]
        try store.insert(basket)
        let (errors, _) = record(store.errors)
        let nameless2 = Fruit()
        basket.fruits.append(nameless2)
        #expect(errors.values == [.invalid(ValidationError(model: "Fruit", id: nil, failures: [.init(property: "name", rule: "not empty")]))])
        #expect(try store.count(Fruit.self) == 1, "only the apple")

        // The invalid child does not hold other changes back: they are written, then flush()
        // says what it could not insert; once the child is fixed, it is inserted.
        apple.name = "green apple"
        #expect(throws: StoreError.self) { try store.flush() }
        #expect(try fixture.another().rows("SELECT name FROM Fruit").map(\.values) == [[.text("green apple")]])
        nameless2.name = "pear"
        try store.flush()
        #expect(nameless2.persistentID != nil && nameless2.basket === basket)
        #expect(try store.count(Fruit.self) == 2)
    }

    /// A child appended while another program holds the write lock is not lost: the failure is
    /// reported, the child stays in the collection, and `flush()` inserts it once the lock is
    /// gone (and throws while it is held).
    @Test func aChildAppendedWhileTheDatabaseIsLockedIsInsertedLater() throws {
        let fixture = try StoreFixture(busyTimeout: .milliseconds(50))
        let store = fixture.store!
        let a = try store.insert(sheet("a", [1]))
        let (errors, _) = record(store.errors)
        let other = try fixture.another()
        try other.execute("BEGIN IMMEDIATE")
        let late = Entry()
        late.label = "late"
        late.position = 99
        a.entries.append(late)
        #expect(late.persistentID == nil)
        #expect(errors.values.count == 1, "the failed insert is reported")
        #expect(throws: StoreError.self) { try store.flush() }
        try other.execute("COMMIT")
        try store.flush()
        #expect(late.persistentID != nil && late.sheet === a)
        #expect(labels(a) == ["a1", "late"])
        #expect(try fixture.another().rows("SELECT label FROM Entry ORDER BY id").map(\.values) == [[.text("a1")], [.text("late")]])
    }

    /// Another process (a plain connection with foreign keys off, as the sqlite3 shell has them)
    /// inserts a child, changes one, moves amounts between two in one transaction and deletes a
    /// parent: the collections and the total follow, the total never shows a half-applied
    /// transaction, and the cascade is applied by the database's trigger.
    @Test func anotherProcessChangesChildrenAndDeletesAParent() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let a = try store.insert(sheet("a", [1, 2]))
        let b = try store.insert(sheet("b", [10]))
        try store.flush()
        let (totals, _) = record(observe(a, \.total))
        let aID = a.persistentID!, bID = b.persistentID!
        let first = a.entries[0].persistentID!, second = a.entries[1].persistentID!

        func run(_ statements: String...) throws {
            let child = try Child(["sql", fixture.path] + statements)
            _ = child.readLines { $0.contains("done") }
            child.process.waitUntilExit()
            #expect(child.process.terminationStatus == 0)
        }
        try run("INSERT INTO Entry (sheet_id, position, amount, label) VALUES (\(aID), 15, 4, 'a3')")
        #expect(pump(fixture.scheduler) { a.entries.count == 3 })
        #expect(labels(a) == ["a1", "a3", "a2"])
        try run("BEGIN; UPDATE Entry SET amount = amount - 1 WHERE id = \(second); UPDATE Entry SET amount = amount + 1 WHERE id = \(first); COMMIT")
        #expect(pump(fixture.scheduler) { a.entries.first?.amount == 2 })
        try run("UPDATE Entry SET sheet_id = \(bID) WHERE id = \(first)")
        #expect(pump(fixture.scheduler) { b.entries.count == 2 })
        #expect(labels(a) == ["a3", "a2"] && labels(b) == ["a1", "b1"])
        let remaining = a.entries
        try run("DELETE FROM Sheet WHERE id = \(aID)")
        #expect(pump(fixture.scheduler) { a.persistentID == nil })
        #expect(remaining.allSatisfy { $0.persistentID == nil }, "deleted with their sheet, by the trigger")
        #expect(a.entries.isEmpty)
        #expect(try fixture.another().rows("SELECT COUNT(*) FROM Entry WHERE sheet_id = \(aID)").first?.values == [.integer(0)])
        #expect(totals.values == [3, 7, 5, 0], "no total from half of the transaction: \(totals.values)")
    }

    /// A child inserted by another process and changed by its next transaction, both seen
    /// before the store applies either: the child joins the collection with the values of the
    /// first transaction, so the total shows each transaction whole (the child's row, read again
    /// to make its model, already holds the second one's values).
    @Test func aNewChildJoinsWithTheValuesOfItsOwnTransaction() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let a = try store.insert(sheet("a", [1, 2]))
        try store.flush()
        let (totals, _) = record(observe(a, \.total))
        let aID = a.persistentID!, first = a.entries[0].persistentID!

        func run(_ statements: String...) throws {
            let child = try Child(["sql", fixture.path] + statements)
            _ = child.readLines { $0.contains("done") }
            child.process.waitUntilExit()
            #expect(child.process.terminationStatus == 0)
        }
        /// Waits (at most 10 s) until the watcher has handed `count` looks to the store.
        func waitForLooks(_ count: Int) {
            let deadline = ContinuousClock.now + .seconds(10)
            while fixture.scheduler.pendingCount < count, ContinuousClock.now < deadline { usleep(2_000) }
        }
        try run("INSERT INTO Entry (sheet_id, position, amount, label) VALUES (\(aID), 15, 4, 'a3')")
        waitForLooks(1)
        try run("BEGIN; UPDATE Entry SET amount = 40 WHERE label = 'a3'; UPDATE Entry SET amount = 100 WHERE id = \(first); COMMIT")
        waitForLooks(2)
        #expect(fixture.scheduler.pendingCount == 2, "two looks, one per transaction")
        #expect(pump(fixture.scheduler) { a.total == 142 })
        #expect(labels(a) == ["a1", "a3", "a2"])
        #expect(totals.values == [3, 7, 142], "each transaction whole: \(totals.values)")
    }

    /// A child moved to a parent that another process deleted before the move was written: the
    /// database refuses the move (the parent is gone), so the move is dropped, said on `errors`
    /// (`StoreError.deleted` naming the parent), and the child is back where its row is; nothing
    /// stays pending forever, and the model and its row agree. The same when the deletion
    /// arrives while the move waits (a commit that failed for another reason).
    @Test func aMoveToAParentDeletedElsewhereIsDroppedAndSaid() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let (a, b, entry, bID, errors) = try twoSheets(store)
        // Another program deletes b (it has no entries: nothing cascades)...
        try fixture.another().execute("DELETE FROM Sheet WHERE id = \(bID)")
        // ...and before this store has looked, the entry moves to b.
        b.entries.append(entry)
        #expect(entry.sheet === b && labels(a).isEmpty)
        try store.flush()                                          // refused by the database: dropped
        #expect(errors.values == [.deleted(model: "Sheet", id: bID)])
        #expect(entry.sheet === a, "back where its row is")
        #expect(labels(a) == ["a1"] && b.entries.isEmpty)
        #expect(store.pendingRowCount == 0)
        try store.refresh()                                        // the deletion arrives
        #expect(b.persistentID == nil)
        #expect(try fixture.another().rows("SELECT sheet_id FROM Entry").map(\.values) == [[.integer(a.persistentID!)]])
        // The same when the deletion is known first: the move is refused at once.
        let c = try store.insert(sheet("c", []))
        try store.flush()
        let cID = try #require(c.persistentID)
        try fixture.another().execute("DELETE FROM Sheet WHERE id = \(cID)")
        try store.refresh()
        c.entries.append(entry)
        try store.flush()
        #expect(entry.sheet === a && labels(a) == ["a1"])
        #expect(store.pendingRowCount == 0)
        // A dropped move leaves nothing behind that keeps the next one from being written.
        let d = try store.insert(sheet("d", []))
        try store.flush()
        d.entries.append(entry)
        #expect(store.pendingRowCount == 1)
        try store.flush()
        #expect(try fixture.another().rows("SELECT sheet_id FROM Entry").map(\.values) == [[.integer(d.persistentID!)]])
    }

    /// The same when another program deletes the parent and then inserts a new row under the
    /// same id (the sqlite3 shell can name the id; so can SQLite, for a table made without
    /// AUTOINCREMENT): the move names the deleted parent, not the new row that has its id. It
    /// is dropped and said, whether the store has looked before the commit or not, and even
    /// when the deleted parent's model was freed meanwhile; an insert naming that parent fails
    /// as it does when the id is free. The new row is left alone.
    @Test func aMoveToAParentDeletedElsewhereIsDroppedWhenAnotherRowTakesItsID() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let a = try store.insert(sheet("a", [1]))
        try store.flush()
        let (errors, _) = record(store.errors)
        let entry = a.entries[0]
        let aID = try #require(a.persistentID)
        func replaceElsewhere(_ id: Int64) throws {
            let other = try fixture.another()
            try other.execute("DELETE FROM Sheet WHERE id = \(id)")
            try other.execute("INSERT INTO Sheet (id, title) VALUES (\(id), 'new')")
        }
        func rowSheets() throws -> [[SQLiteValue]] { try fixture.another().rows("SELECT sheet_id FROM Entry ORDER BY id").map(\.values) }

        // Not looked at before the commit.
        let b = try store.insert(sheet("b", []))
        try store.flush()
        let bID = try #require(b.persistentID)
        try replaceElsewhere(bID)
        b.entries.append(entry)
        try store.flush()
        #expect(errors.values == [.deleted(model: "Sheet", id: bID)])
        #expect(entry.sheet === a && labels(a) == ["a1"] && b.entries.isEmpty)
        #expect(try rowSheets() == [[.integer(aID)]], "the new row with b's id did not get the entry")
        #expect(store.pendingRowCount == 0)
        try store.refresh()
        #expect(b.persistentID == nil)
        #expect(try store.load(Sheet.self, id: bID)?.entries.isEmpty == true)

        // Looked at before the commit, the deleted parent's model freed meanwhile.
        var c: Sheet? = try store.insert(sheet("c", []))
        try store.flush()
        let cID = try #require(c?.persistentID)
        c!.entries.append(entry)
        c = nil
        try replaceElsewhere(cID)
        try store.refresh()
        try store.flush()
        #expect(errors.values.dropFirst() == [.deleted(model: "Sheet", id: cID)])
        #expect(entry.sheet === a && labels(a) == ["a1"])
        #expect(try rowSheets() == [[.integer(aID)]])
        #expect(try store.load(Sheet.self, id: cID)?.entries.isEmpty == true)

        // An insert naming a parent deleted elsewhere fails the same whether its id is free or
        // taken by a new row.
        func insertNaming(_ parent: Sheet) -> StoreError? {
            let child = Entry()
            child.label = "late"
            child.sheet = parent
            do {
                try store.insert(child)
                return nil
            } catch {
                return error
            }
        }
        let d = try store.insert(sheet("d", [])), e = try store.insert(sheet("e", []))
        try store.flush()
        try fixture.another().execute("DELETE FROM Sheet WHERE id = \(d.persistentID!)")
        try replaceElsewhere(e.persistentID!)
        let free = insertNaming(d), taken = insertNaming(e)
        #expect(free != nil && taken == free, "\(String(describing: free)) and \(String(describing: taken))")
        #expect(try fixture.another().rows("SELECT COUNT(*) FROM Entry WHERE label = 'late'").first?.values == [.integer(0)])
    }

    /// A move to a parent deleted elsewhere, made with another change of the same child, both
    /// written through by the store's own turns (no `flush()`): the move is dropped and said,
    /// and the other change is written at the next turn, not left waiting for another edit.
    @Test func theOtherChangesOfAChildWhoseMoveIsDroppedAreWrittenWithoutAFlush() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let (a, b, entry, bID, errors) = try twoSheets(store)
        let other = try fixture.another()
        try other.execute("DELETE FROM Sheet WHERE id = \(bID)")
        try other.execute("INSERT INTO Sheet (id, title) VALUES (\(bID), 'new')")
        b.entries.append(entry)
        entry.amount = 40
        // The store's turns, while its writer queue commits (the rows then say it, or not).
        let written = pump(fixture.scheduler, timeout: .seconds(5)) {
            ((try? other.rows("SELECT amount FROM Entry").first?.values) ?? nil) == [.integer(40)]
        }
        #expect(written, "the amount is written without a flush")
        // The commit's outcome reaches the store at a turn after the row is in the file: the
        // row is not left pending.
        let settled = pump(fixture.scheduler, timeout: .seconds(5)) { store.pendingRowCount == 0 }
        #expect(settled, "nothing is left pending")
        #expect(errors.values == [.deleted(model: "Sheet", id: bID)])
        #expect(entry.sheet === a && entry.amount == 40)
        #expect(try other.rows("SELECT sheet_id, amount FROM Entry").map(\.values) == [[.integer(a.persistentID!), .integer(40)]])
    }

    /// A move waiting when this store inserts a parent that gets the id of the parent the move
    /// named (another program deleted it, and SQLite gives its id again): the move named the
    /// deleted parent, so it is dropped and said, not written into the new one.
    @Test func aMoveNamingAParentWhoseIDThisStoresInsertGetsIsDropped() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let (a, b, entry, bID, errors) = try twoSheets(store)
        b.entries.append(entry)                                    // pending
        try fixture.another().execute("DELETE FROM Sheet WHERE id = \(bID)")
        let c = try store.insert(sheet("c", []))
        #expect(c.persistentID == bID, "SQLite gave b's id again")
        try store.flush()
        #expect(errors.values == [.deleted(model: "Sheet", id: bID)])
        #expect(entry.sheet === a && labels(a) == ["a1"] && c.entries.isEmpty && b.persistentID == nil)
        #expect(try fixture.another().rows("SELECT sheet_id FROM Entry").map(\.values) == [[.integer(a.persistentID!)]])
        #expect(store.pendingRowCount == 0)
    }

    /// A child inserted with its parent and moved to another parent by another program before
    /// the insert returns (here an observer of `committedChanges` has the program move it, and
    /// refreshes, so the move would be applied inside the insert): the child ends in the
    /// collection its row names, only there, and names that parent. The observer hears of the
    /// child's insert, or of the parent's, which comes before the children's models have their
    /// rows (the refresh inside the insert is applied once the insert has placed them).
    @Test(arguments: ["Entry", "Sheet"])
    func aChildMovedElsewhereWhileItsParentIsInsertedEndsWhereItsRowSays(heard: String) throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let a = try store.insert(sheet("a", [1]))
        try store.flush()
        let aID = try #require(a.persistentID)
        let other = try fixture.another()
        let mover = Mover()
        (mover.store, mover.other, mover.parentID, mover.table) = (store, other, aID, heard)
        let subscription = store.committedChanges.subscribe(with: mover, next: { mover, change in
            guard !mover.moved, change.table == mover.table, change.kind == .insert else { return }
            mover.moved = true
            let row = change.table == "Entry" ? "id" : "sheet_id"
            try? mover.other?.execute("UPDATE Entry SET sheet_id = \(mover.parentID), position = 15 WHERE \(row) = \(change.rowID)")
            try? mover.store?.refresh()
        })
        defer { subscription.dispose() }
        let b = sheet("b", [2])
        let entry = b.entries[0]
        try store.insert(b)
        #expect(mover.moved)
        #expect(entry.sheet === a, "named where its row says")
        #expect(labels(a) == ["a1", "b1"] && b.entries.isEmpty)
        #expect(a.entries.last === entry, "the model inserted, not another one made from its row")
        #expect(try store.load(Entry.self, id: entry.persistentID ?? 0) === entry)
        #expect(store.pendingRowCount == 0)
        #expect(try other.rows("SELECT sheet_id FROM Entry WHERE label = 'b1'").map(\.values) == [[.integer(aID)]])
    }

    /// The move waits (the database was locked) when the deletion of its parent arrives: the
    /// move is dropped then, said, and the child is back where its row is.
    @Test func aMoveWaitingWhenItsParentIsDeletedElsewhereIsDropped() throws {
        let fixture = try StoreFixture(busyTimeout: .milliseconds(20))
        let store = fixture.store!
        let (a, b, entry, bID, errors) = try twoSheets(store)
        let other = try fixture.another()
        try other.execute("BEGIN IMMEDIATE; DELETE FROM Sheet WHERE id = \(bID)")
        b.entries.append(entry)
        let busy = #expect(throws: StoreError.self) { try store.flush() }
        #expect(busy?.sqliteError?.isBusy == true)
        #expect(store.pendingRowCount == 1, "waiting")
        try other.execute("COMMIT")
        try store.refresh()
        #expect(b.persistentID == nil)
        #expect(entry.sheet === a && labels(a) == ["a1"])
        #expect(store.pendingRowCount == 0)
        #expect(errors.values.contains(.deleted(model: "Sheet", id: bID)), "\(errors.values)")
        try store.flush()
        #expect(try fixture.another().rows("SELECT sheet_id FROM Entry").map(\.values) == [[.integer(a.persistentID!)]])
    }

    /// A store whose first use of a parent type cannot finish setting it up (the database is
    /// locked while the child's table or the delete rule's trigger must be made) is not left
    /// half set up: once the lock is gone, the children are inserted with their parent and the
    /// trigger is there. (Before, the parent's table stayed registered without its
    /// relationships: a parent was inserted without its children, which named nothing.)
    @Test func aParentWhoseSetUpFailedIsSetUpAgainOnItsNextUse() throws {
        for missing in ["DROP TABLE Entry", "DROP TRIGGER tether_Sheet_entries_delete"] {
            let fixture = try StoreFixture()
            try fixture.store.insert(sheet("made", [1]))
            try fixture.store.flush()
            fixture.close()
            try fixture.another().execute(missing)
            try fixture.open(busyTimeout: .milliseconds(20))
            let store = fixture.store!
            let locker = try fixture.another()
            try locker.execute("BEGIN IMMEDIATE")
            #expect(throws: StoreError.self, "\(missing): locked") { try store.fetch(Sheet.self) }
            try locker.execute("ROLLBACK")
            let a = try store.insert(sheet("a", [1, 2]))
            try store.flush()
            #expect(a.entries.allSatisfy { $0.persistentID != nil && $0.sheet === a }, "\(missing): the children inserted, naming their parent")
            #expect(try fixture.another().rows("SELECT count(*) FROM Entry WHERE sheet_id = \(a.persistentID!)").first?.values == [.integer(2)])
            #expect(try fixture.another().rows("SELECT count(*) FROM sqlite_master WHERE name = 'tether_Sheet_entries_delete'").first?.values == [.integer(1)],
                    "\(missing): the cascade's trigger made")
        }
    }

    /// Another process is held to the deny rule too (the trigger refuses its delete).
    @Test func anotherProcessIsRefusedADeniedDelete() throws {
        let fixture = try StoreFixture()
        let keeper = try fixture.store.insert(Keeper())
        keeper.pets = [Pet()]
        try fixture.store.flush()
        let child = try Child(["sql", fixture.path, "DELETE FROM Keeper WHERE id = \(keeper.persistentID!)"], errors: FileHandle.nullDevice)
        child.process.waitUntilExit()
        #expect(child.process.terminationStatus != 0)
        #expect(try fixture.store.count(Keeper.self) == 1)
    }

    /// Nothing is kept alive by the relationship: a sheet and its entries are freed when the
    /// test lets them go (the entries refer back without holding the sheet).
    @Test func aParentAndItsChildrenAreFreed() throws {
        let fixture = try StoreFixture()
        weak var weakSheet: Sheet?
        weak var weakEntry: Entry?
        do {
            let a = try fixture.store.insert(sheet("a", [1, 2]))
            weakSheet = a
            weakEntry = a.entries[0]
            #expect(a.total == 3)
            try fixture.store.flush()
        }
        #expect(weakSheet == nil)
        #expect(weakEntry == nil)
    }

    /// A child held on its own outlives its parent's model; reading its reference back loads the
    /// parent again, with its collection, holding the same child.
    @Test func aReferenceBackLoadsItsFreedParentAgain() throws {
        let fixture = try StoreFixture()
        weak var weakSheet: Sheet?
        let entry: Entry
        do {
            let a = try fixture.store.insert(sheet("a", [1, 2]))
            weakSheet = a
            entry = a.entries[1]
            try fixture.store.flush()
        }
        #expect(weakSheet == nil, "the entry does not keep its sheet alive")
        let parent = try #require(entry.sheet)
        #expect(parent.title == "a")
        #expect(parent.entries.last === entry)
        #expect(parent.total == 3)
    }
}
