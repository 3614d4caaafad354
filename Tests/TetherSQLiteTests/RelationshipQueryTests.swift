import Foundation
import Testing
import TetherSQLite   // the public API only
import TetherTestSupport

/// Typed conditions through relationships: `.related(\.client, ...)` on a to-one relationship and
/// `.any(\.entries, ...)` on a to-many one become subqueries, mean what the same test means in
/// Swift (a nil relationship matches nothing, `!` included), and keep live queries live when the
/// related rows change.
@Suite("Typed conditions through relationships")
struct RelationshipQueryTests {
    /// Seeded clients, bills and sheets; 300 random conditions through relationships, each
    /// fetched and compared with the same test evaluated in Swift on the models.
    @Test func conditionsThroughRelationshipsMatchSwift() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        var random = SeededRandom(seed: 16)
        let names = ["Ada", "Alan", "Grace", "Edsger", ""]
        let clients = try names.map { name in
            let client = Client()
            client.name = name
            return try store.insert(client)
        }
        let bills = try (0..<40).map { number in
            let bill = Bill()
            bill.number = number
            bill.client = random.chance(80) ? clients[random.below(clients.count)] : nil
            return try store.insert(bill)
        }
        let sheets = try (0..<15).map { index in
            let sheet = Sheet()
            sheet.title = "s\(index)"
            sheet.entries = (0..<random.below(4)).map { _ in
                let entry = Entry()
                entry.amount = random.within(0...20)
                entry.label = random.chance(50) ? "x" : "y"
                return entry
            }
            return try store.insert(sheet)
        }
        try store.flush()

        for round in 0..<300 {
            let name = names[random.below(names.count)]
            let limit = random.within(0...20)
            let negate = random.chance(30)
            if random.chance(50) {
                let prefix = String(name.prefix(random.below(3)))
                let equality = random.chance(50)
                let inner: Condition<Client> = equality ? \.name == name : .hasPrefix(\.name, prefix)
                let test: (Bill) -> Bool = { bill in
                    guard let client = bill.client else { return false }
                    return equality ? client.name == name : client.name.hasPrefix(prefix)
                }
                let condition: Condition<Bill> = .related(\.client, inner) && \.number < limit + 20
                let fetched = try store.fetch(Bill.self, where: negate ? !condition : condition).map(\.number).sorted()
                let expected = bills.filter { (test($0) && $0.number < limit + 20) != negate }.map(\.number).sorted()
                #expect(fetched == expected, "round \(round): bills, \(negate ? "not " : "")client \(name)/\(prefix), number < \(limit + 20)")
            } else {
                let label = random.chance(50) ? "x" : "y"
                let condition: Condition<Sheet> = .any(\.entries, \.amount > limit && \.label == label)
                let fetched = try store.fetch(Sheet.self, where: negate ? !condition : condition).map(\.title).sorted()
                let expected = sheets.filter { sheet in
                    sheet.entries.contains { $0.amount > limit && $0.label == label } != negate
                }.map(\.title).sorted()
                #expect(fetched == expected, "round \(round): sheets, \(negate ? "no" : "any") entry > \(limit) labelled \(label)")
            }
        }
    }

    /// A live query through a relationship follows the related rows: renaming a client here,
    /// and then in another connection, moves its bills in and out of the result, and an entry
    /// changed elsewhere moves its sheet.
    @Test func aLiveQueryThroughARelationshipFollowsTheRelatedRows() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ada = Client(), alan = Client()
        ada.name = "Ada"
        alan.name = "Alan"
        try store.insert(contentsOf: [ada, alan])
        let first = Bill(), second = Bill()
        first.number = 1
        first.client = ada
        second.number = 2
        second.client = alan
        try store.insert(contentsOf: [first, second])
        let (results, _) = record(store.observe(Bill.self, where: .related(\.client, \.name == "Ada")))
        alan.name = "Ada"
        try store.flush()
        let other = try fixture.another()
        try other.execute("UPDATE Client SET name = 'Countess' WHERE id = ?", [.integer(ada.persistentID!)])
        try store.refresh()
        #expect(results.values.map { $0.map(\.number) } == [[1], [1, 2], [2]])

        let sheet = try store.insert(Sheet())
        let entry = Entry()
        entry.amount = 1
        sheet.entries = [entry]
        let (big, _) = record(store.observe(Sheet.self, where: .any(\.entries, \.amount > 10)))
        try other.execute("UPDATE Entry SET amount = 50 WHERE id = ?", [.integer(entry.persistentID!)])
        try store.refresh()
        #expect(big.values.map { $0.count } == [0, 1])
        #expect(entry.amount == 50)
    }

    /// "Has no client" is `\.client == nil` (or `.isNil`), as reading the relationship says:
    /// NULL, or an id that names no row (another program wrote it, foreign keys off). The same
    /// for the inverse of a to-many relationship.
    @Test func aToOneComparedWithNilMeansWhatReadingItSays() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ada = try store.insert({ let client = Client(); client.name = "Ada"; return client }())
        let bills = try (0..<4).map { number in
            let bill = Bill()
            bill.number = number
            bill.client = number < 2 ? ada : nil
            return try store.insert(bill)
        }
        let sheet = try store.insert(Sheet())
        let loose = try store.insert(Entry())
        sheet.entries = [try store.insert(Entry())]
        try store.flush()
        let other = try fixture.another()
        try other.execute("PRAGMA foreign_keys = OFF")
        try other.execute("UPDATE Bill SET client_id = 999 WHERE number = 1")
        try store.refresh()
        #expect(bills[1].client == nil, "the id names no row: read, it is nil")

        func numbers(_ condition: Condition<Bill>) throws -> [Int] {
            try store.fetch(Bill.self, where: condition, orderBy: \.number).map(\.number)
        }
        #expect(try numbers(\.client == nil) == [1, 2, 3])
        #expect(try numbers(.isNil(\.client)) == [1, 2, 3])
        #expect(try numbers(\.client != nil) == [0])
        #expect(try numbers(!(\.client == nil)) == [0])
        #expect(try numbers(.isNotNil(\.client) || \.number == 3) == [0, 3])
        #expect(try store.count(Bill.self, where: \.client == nil) == 3)
        let withoutSheet = try store.fetch(Entry.self, where: \.sheet == nil)
        #expect(withoutSheet.map(ObjectIdentifier.init) == [ObjectIdentifier(loose)])
    }

    /// `contains`, `hasPrefix` and `hasSuffix` on an optional text: nil contains nothing, and
    /// `!` of it holds for nil, as in Swift (`nickname?.contains(x) == true`).
    @Test func textConditionsOnAnOptionalText() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let nicknames: [String?] = ["Ace", nil, "Grace", "", nil, "Lace\0x"]
        for nickname in nicknames {
            let contact = Contact()
            contact.nickname = nickname
            try store.insert(contact)
        }
        try store.flush()
        func matches(_ condition: Condition<Contact>) throws -> [String?] {
            try store.fetch(Contact.self, where: condition).map(\.nickname)
        }
        #expect(try matches(.contains(\.nickname, "ace")) == ["Grace", "Lace\0x"])
        #expect(try matches(.contains(\.nickname, "ACE", ignoringCase: true)) == ["Ace", "Grace", "Lace\0x"])
        #expect(try matches(.hasPrefix(\.nickname, "")) == ["Ace", "Grace", "", "Lace\0x"], "nil has no prefix, not even the empty one")
        #expect(try matches(.hasSuffix(\.nickname, "\0x")) == ["Lace\0x"])
        #expect(try matches(!.contains(\.nickname, "ace")) == ["Ace", nil, "", nil])
        let swift = nicknames.filter { !($0?.hasPrefix("A") == true) }
        #expect(try matches(!.hasPrefix(\.nickname, "A")) == swift)
    }
}

@Model
final class Contact {
    var nickname: String?
}
extension Contact: PersistentModel {}
