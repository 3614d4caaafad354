import Foundation
import Testing
import TetherTestSupport
@testable import TetherSQLite

/// What a stored model costs and holds: models the store loads or inserts get no observer
/// machinery of their own, the store's reads are not Observation reads, the identity map does
/// not grow without bound, and nothing the store installs outlives what it should.
@Suite("Store: footprint of stored models")
struct StoreFootprintTests {
    @Test func loadedAndInsertedModelsGetNoObserverMachineryUntilObserved() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let inserted = try store.insert(Ticket())
        #expect(inserted._$registrar.hasSideObject == false)
        inserted.points = 4                                   // written through by the hook alone
        try store.flush()
        let id = try #require(inserted.persistentID)
        #expect(try fixture.another().rows("SELECT points FROM Ticket WHERE id = ?", [.integer(id)]).first?.values == [.integer(4)])
        #expect(inserted._$registrar.hasSideObject == false)

        try fixture.another().execute("INSERT INTO Ticket (title, points) VALUES ('other', 7)")
        let loaded = try #require(try store.fetch(Ticket.self, where: "title = 'other'").first)
        #expect(loaded._$registrar.hasSideObject == false)

        // Observing makes it, and both the observer and the store hear every change.
        let seen = Box<Int>()
        let subscription = observe(loaded, \.points).subscribe(next: { seen.append($0) })
        #expect(loaded._$registrar.hasSideObject == true)
        loaded.points = 8
        try store.flush()
        #expect(seen.values == [7, 8])
        #expect(try fixture.another().rows("SELECT points FROM Ticket WHERE title = 'other'").first?.values == [.integer(8)])
        subscription.dispose()
    }

    @Test func theStoresReadsAreNotObservationReads() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let previous = ObservationBridge.isEnabled
        ObservationBridge.isEnabled = true
        defer { ObservationBridge.isEnabled = previous }
        let ticket = Ticket()
        ticket.title = "a"
        try store.insert(ticket)                               // reads every persisted property
        ticket.points = 2
        try store.flush()                                      // reads the changed one again
        _ = try store.fetch(Ticket.self)
        #expect(ticket._$registrar.bridgedProperties == 0,
                "only reads outside Tether make Observation watch a property (and slow its writes)")
        _ = ticket.points                                      // the app's own read
        #expect(ticket._$registrar.bridgedProperties != 0)
    }

    @Test func aReadUnderTheBridgeMakesObservationsRegistrarAlone() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let previous = ObservationBridge.isEnabled
        ObservationBridge.isEnabled = true
        defer { ObservationBridge.isEnabled = previous }
        try store.insert(contentsOf: (0..<3).map { _ in Ticket() })
        let tickets = try store.fetch(Ticket.self)
        // What each model's registrar has made (`#expect` cannot take apart a noncopyable value).
        func made(_ ticket: Ticket) -> (side: Bool, observation: Bool) {
            (ticket._$registrar.hasSideObject, ticket._$registrar.hasObservationRegistrar)
        }
        _ = tickets[0].points                                  // the app's own read
        #expect(made(tickets[0]).observation)
        #expect(!made(tickets[0]).side, "no observer machinery for a read")
        // Observing makes the side object, which takes Observation's registrar over.
        let subscription = observe(tickets[0], \.points).subscribe(next: { _ in })
        #expect(made(tickets[0]).side)
        #expect(made(tickets[0]).observation)
        // Observed first, then read: the side object makes Observation's registrar.
        let second = observe(tickets[1], \.points).subscribe(next: { _ in })
        #expect(made(tickets[1]).side && !made(tickets[1]).observation)
        _ = tickets[1].points
        #expect(made(tickets[1]).observation)
        subscription.dispose()
        second.dispose()
        #expect(!made(tickets[2]).observation && !made(tickets[2]).side)
    }

    @Test func theIdentityMapDropsTheEntriesOfFreedModels() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        try store.insert(contentsOf: (0..<3_000).map { _ in Ticket() })   // dropped at once
        let kept = try store.fetch(Ticket.self, where: "id <= 10")
        for round in 0..<20 {
            let chunk = try store.fetch(Ticket.self, where: "id > ? AND id <= ?", [.integer(Int64(10 + 100 * round)), .integer(Int64(110 + 100 * round))])
            #expect(chunk.count == 100)
        }
        // 3,000 rows were live at some point; the map holds the 10 live ones and at most what
        // was added since the last sweep (it sweeps before growing past twice the last count).
        #expect(store.state.identity.entryCount("Ticket") < 2_200)
        #expect(try store.fetch(Ticket.self, where: "id <= 10").elementsEqual(kept, by: ===))
    }

    /// Nothing the store keeps points at its models or at itself by a `weak` reference, whose
    /// side table would cost every stored model 48 bytes and send every retain and release of
    /// a model or the store (two per set) down the runtime's slow path.
    @Test func storedModelsAndTheStoreGetNoSideTable() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let inserted = (0..<100).map { _ in Ticket() }
        try store.insert(contentsOf: inserted)
        try fixture.another().execute("INSERT INTO Ticket (title, points) VALUES ('other', 7)")
        let loaded = try store.fetch(Ticket.self)
        #expect(loaded.count == 101)
        for ticket in loaded { ticket.points += 1 }
        try store.flush()
        #expect(try fixture.another().scalar("SELECT SUM(points) FROM Ticket", as: Int.self) == 100 * 2 + 8)
        #expect(loaded.filter(hasSideTable).count == 0)
        #expect(!hasSideTable(store))
        withExtendedLifetime(inserted) {}
    }

    /// Models dropped without the map growing afterwards: the next use of the map sweeps their
    /// entries (and what is left of the models), counted by their registrars as they end.
    @Test func theIdentityMapDropsFreedModelsWithoutGrowing() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        try store.insert(contentsOf: (0..<3_000).map { _ in Ticket() })   // dropped at once
        var all = try store.fetch(Ticket.self)
        #expect(try store.fetch(Ticket.self, where: "id = 1").first === all[0])  // sweeps nothing: all live
        #expect(store.state.identity.entryCount("Ticket") == 3_000)
        let first = all[0]
        all = []
        #expect(try store.fetch(Ticket.self, where: "id = 2").count == 1)
        #expect(store.state.identity.entryCount("Ticket") == 2, "row 1's model is kept, row 2's loaded again")
        #expect(try store.fetch(Ticket.self, where: "id = 1").first === first)
    }

    @Test func aModelOutlivingItsStoreIsNoLongerWrittenAndNothingCrashes() throws {
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        weak let table = fixture.store.state.tables[ObjectIdentifier(Ticket.self)]
        fixture.close()
        #expect(table == nil, "the model's hook does not keep the store's table alive")
        ticket.points = 9                                      // the store is gone: not written
        fixture.scheduler.advance()
        #expect(try fixture.another().rows("SELECT points FROM Ticket WHERE id = ?", [.integer(id)]).first?.values == [.integer(1)])
    }

    @Test func theHookAndTableAreFreedWithTheStoreAndItsModels() throws {
        let fixture = try StoreFixture()
        weak var table: _Table?
        weak var model: Ticket?
        do {
            let ticket = try fixture.store.insert(Ticket())
            model = ticket
            table = fixture.store.state.tables[ObjectIdentifier(Ticket.self)]
            #expect(ticket._$registrar.persistence === table?.liveHook)
        }
        #expect(model == nil)
        fixture.close()
        #expect(table == nil)
    }

    @Test func loadingOneRowByIDReadsItOnceAndMapsIt() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        #expect(try store.fetch(Ticket.self).isEmpty)          // creates the table
        try fixture.another().execute("INSERT INTO Ticket (id, title, points, estimate) VALUES (41, 'x', 3, 2.5)")
        fixture.log.clear()
        let loaded = try #require(try store.load(Ticket.self, id: 41))
        #expect([loaded.title, "\(loaded.points)", "\(loaded.estimate.map { "\($0)" } ?? "nil")"] == ["x", "3", "2.5"])
        #expect(try store.load(Ticket.self, id: 41) === loaded)
        #expect(try store.load(Ticket.self, id: 42) == nil)
        #expect(fixture.log.statements.filter { $0.hasPrefix("SELECT") }.count == 2, "41 once, then 42")
    }
}
