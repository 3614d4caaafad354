import Foundation
import Testing
import TetherSQLite   // the public API only
import TetherTestSupport

/// Live sums, smallest and largest values follow every commit, here and by another connection,
/// and always equal what `sum`, `min` and `max` read from the rows then.
@Suite("Live aggregates")
struct LiveAggregateTests {
    @Test(arguments: [1, 2, 3])
    func liveAggregatesEqualTheQueryAfterEveryCommit(seed: Int) throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        var random = SeededRandom(seed: UInt64(seed))
        let customers = ["Ada", "Grace", "Alan", "ada", "Émile"]
        let discounts: [Double?] = [nil, 0.25, 0.5, 1.75, 12.5]
        var held: [Purchase] = []
        for _ in 0..<40 {
            let purchase = Purchase()
            purchase.customer = customers[random.below(customers.count)]
            purchase.quantity = random.within(0...10)
            purchase.discount = discounts[random.below(discounts.count)]
            held.append(try store.insert(purchase))
        }
        try store.flush()

        let (units, a) = record(store.observeSum(\Purchase.quantity))
        let (adaUnits, b) = record(store.observeSum(\Purchase.quantity, where: \.customer == "Ada"))
        let (discountSum, c) = record(store.observeSum(\Purchase.discount, where: \.quantity > 3))
        let (fewest, d) = record(store.observeMin(\Purchase.quantity, where: .contains(\.customer, "a", ignoringCase: true)))
        let (most, e) = record(store.observeMax(\Purchase.discount))
        let (firstName, f) = record(store.observeMin(\Purchase.customer, where: \.quantity < 5))
        defer { [a, b, c, d, e, f].forEach { $0.dispose() } }
        let other = try fixture.another()

        func check(_ round: Int, _ what: String) throws {
            #expect(units.values.last ?? nil == (try store.sum(\Purchase.quantity)), "seed \(seed) round \(round) \(what): sum")
            #expect(adaUnits.values.last ?? nil == (try store.sum(\Purchase.quantity, where: \.customer == "Ada")), "seed \(seed) round \(round): Ada's")
            #expect(discountSum.values.last ?? nil == (try store.sum(\Purchase.discount, where: \.quantity > 3)), "seed \(seed) round \(round): discounts")
            #expect(fewest.values.last ?? nil == (try store.min(\Purchase.quantity, where: .contains(\.customer, "a", ignoringCase: true))), "seed \(seed) round \(round): min")
            #expect(most.values.last ?? nil == (try store.max(\Purchase.discount)), "seed \(seed) round \(round): max")
            #expect(firstName.values.last ?? nil == (try store.min(\Purchase.customer, where: \.quantity < 5)), "seed \(seed) round \(round): first name")
            for history in [units.values, adaUnits.values, fewest.values] {
                #expect(zip(history, history.dropFirst()).allSatisfy { $0 != $1 }, "seed \(seed) round \(round): a value sent twice in a row")
            }
        }
        try check(0, "first")
        for round in 1...150 {
            let what: String
            switch random.below(8) {
            case 0:
                what = "insert elsewhere"
                let discount = discounts[random.below(discounts.count)].map { "\($0)" } ?? "NULL"
                try other.execute("INSERT INTO Purchase (customer, quantity, discount) VALUES ('\(customers[random.below(customers.count)])', \(random.within(0...10)), \(discount))")
            case 1:
                what = "delete elsewhere"
                try other.execute("DELETE FROM Purchase WHERE id = (SELECT id FROM Purchase ORDER BY random() LIMIT 1)")
            case 2:
                what = "update elsewhere"
                try other.execute("UPDATE Purchase SET quantity = \(random.within(0...10)) WHERE id = (SELECT id FROM Purchase ORDER BY random() LIMIT 1)")
            case 3:
                what = "many rows elsewhere, one transaction"
                try other.execute("BEGIN; UPDATE Purchase SET quantity = quantity + 1 WHERE quantity < 3; UPDATE Purchase SET discount = NULL WHERE discount = 0.5; COMMIT")
            case 4:
                what = "customer elsewhere"
                try other.execute("UPDATE Purchase SET customer = '\(customers[random.below(customers.count)])' WHERE id = (SELECT id FROM Purchase ORDER BY random() LIMIT 1)")
            case 5:
                what = "here"
                held.removeAll { $0.persistentID == nil }
                if let purchase = held.randomElement(using: &random) {
                    purchase.quantity = random.within(0...10)
                    purchase.discount = discounts[random.below(discounts.count)]
                }
                try store.flush()
            case 6:
                what = "insert here"
                let purchase = Purchase()
                purchase.customer = customers[random.below(customers.count)]
                purchase.quantity = random.within(0...10)
                held.append(try store.insert(purchase))
            default:
                what = "delete here"
                held.removeAll { $0.persistentID == nil }
                if let purchase = held.randomElement(using: &random) { try store.delete(purchase) }
            }
            try store.refresh()
            try check(round, what)
        }
    }

    /// A condition through a relationship reads the related table: a change there (a client
    /// renamed elsewhere) changes the sum, which is made again from every row.
    @Test func aSumThroughARelationshipFollowsTheRelatedTable() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ada = Client(), grace = Client()
        ada.name = "Ada"
        grace.name = "Grace"
        try store.insert(contentsOf: [ada, grace])
        for (number, client) in [(1, ada), (2, ada), (4, grace)] {
            let bill = Bill()
            bill.number = number
            bill.client = client
            try store.insert(bill)
        }
        try store.flush()
        let (sums, observing) = record(store.observeSum(\Bill.number, where: .related(\.client, \.name == "Ada")))
        try fixture.another().execute("UPDATE Client SET name = 'Ada' WHERE name = 'Grace'")
        try store.refresh()
        try fixture.another().execute("DELETE FROM Bill WHERE number = 1")
        try store.refresh()
        #expect(sums.values == [3, 7, 6])
        let (none, empty) = record(store.observeMax(\Bill.number, where: \.number > 100))
        #expect(none.values == [nil])
        observing.dispose()
        empty.dispose()
    }

    /// A value of another type written by another program (text in an integer column) and an
    /// integer overflow: the live sum says what SQL says, its value or its error.
    @Test func aSumOfValuesAnotherProgramWroteIsWhatSQLSays() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        for quantity in [1, 2] {
            let purchase = Purchase()
            purchase.quantity = quantity
            try store.insert(purchase)
        }
        try store.flush()
        let (sums, observing) = record(store.observeSum(\Purchase.quantity))
        let (watched, watching) = record(store.observeSum(\Purchase.quantity))
        /// The live sum ends as `sum` reads: the same value, or an error when `sum` throws.
        func agrees(_ history: History<Int?>, _ what: String) {
            switch Result(catching: { try store.sum(\Purchase.quantity) }) {
            case .success(let value):
                #expect(history.values.last == value, "\(what): \(history.events)")
            case .failure:
                #expect(history.events.contains { if case .error = $0 { true } else { false } }, "\(what): \(history.events)")
            }
        }
        let other = try fixture.another()
        try other.execute("UPDATE Purchase SET quantity = 'many' WHERE quantity = 2")
        try store.refresh()
        #expect(try fixture.another().rows("SELECT typeof(sum(quantity)) FROM Purchase").first?.values == [.text("real")])
        agrees(sums, "text in the column")
        observing.dispose()

        try other.execute("UPDATE Purchase SET quantity = 9223372036854775807")
        try store.refresh()
        agrees(watched, "an integer overflow")
        let (big, fresh) = record(store.observeSum(\Purchase.quantity))
        agrees(big, "subscribed after the overflow")
        #expect(big.events.contains { if case .error(let error) = $0 { "\(error)".contains("overflow") } else { false } }, "\(big.events)")
        watching.dispose()
        fresh.dispose()
    }

    /// A live min of a text column follows rows inserted and deleted elsewhere, as `min` reads it.
    @Test func aLiveMinOfTextFollowsInsertsAndDeletesElsewhere() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        for name in ["b", "A", "c"] { let c = Client(); c.name = name; try store.insert(c) }
        try store.flush()
        let (mins, o) = record(store.observeMin(\Client.name))
        #expect(mins.values.last == (try store.min(\Client.name)))
        try fixture.another().execute("INSERT INTO Client (name) VALUES ('a')")
        try store.refresh()
        #expect(mins.values.last == (try store.min(\Client.name)))
        try fixture.another().execute("DELETE FROM Client WHERE name = 'A'")
        try store.refresh()
        #expect(mins.values.last == (try store.min(\Client.name)), "\(mins.values)")
        o.dispose()
    }

    /// A property that has no column is an error that names it, as for the other queries.
    @Test func aComputedPropertyIsAnError() throws {
        let fixture = try StoreFixture()
        let (values, observing) = record(fixture.store.observeSum(\Purchase.doubled))
        #expect(values.values.isEmpty)
        #expect(values.events.last.map { "\($0)" }?.contains("Purchase.doubled is a computed property") == true, "\(values.events)")
        observing.dispose()
    }
}
