import Foundation
import TetherSQLite
import TetherTestSupport
import Testing

@Model
final class Purchase {
    var customer = ""
    var quantity = 0
    var discount: Double? = nil
    @Transient var draft = ""
    var doubled: Int { quantity * 2 }
}
extension Purchase: PersistentModel {}

/// A condition and the same test written in Swift.
private struct Case {
    let condition: Condition<Purchase>
    let holds: (Purchase) -> Bool
    let text: String
}

private let customers = ["Ada", "ada", "Grace", "a*b", "a?c", "[x]", "50%_off", "'); DROP TABLE \"Purchase\"; --", "", "ÉMILE", "émile", "张伟",
                         "a\0b", "a", "a\0", "\0", "x\0c", "b\u{10FFFF}", "b\u{10FFFF}\u{10FFFF}c", "\u{D7FF}", "\u{E000}"]
private let fragments = ["a", "A", "*", "?", "[", "%", "_", "off", "x]", "DROP", "", "É", "émi", "张", "GRACE",
                         "\0b", "\0c", "a\0", "\0", "b\u{10FFFF}", "\u{10FFFF}", "\u{D7FF}"]
private let discounts: [Double?] = [nil, 0.1, 0.25, 0.5]

/// Whether `part` occurs in `text`, character by character. (Foundation's `contains`, which
/// `String` gets when Foundation is imported, stops at a NUL: `"a".contains("a\0")` is true.)
private func occurs(_ part: String, in text: String) -> Bool {
    let part = Array(part), text = Array(text)
    guard !part.isEmpty else { return true }
    guard part.count <= text.count else { return false }
    return (0...(text.count - part.count)).contains { start in text[start..<(start + part.count)].elementsEqual(part) }
}

/// A random condition of depth at most `depth`, with its Swift twin.
private func randomCase(_ random: inout SeededRandom, depth: Int) -> Case {
    if depth > 0, Int.random(in: 0..<3, using: &random) == 0 {
        let lhs = randomCase(&random, depth: depth - 1), rhs = randomCase(&random, depth: depth - 1)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return Case(condition: lhs.condition && rhs.condition, holds: { lhs.holds($0) && rhs.holds($0) }, text: "(\(lhs.text) && \(rhs.text))")
        case 1: return Case(condition: lhs.condition || rhs.condition, holds: { lhs.holds($0) || rhs.holds($0) }, text: "(\(lhs.text) || \(rhs.text))")
        default: return Case(condition: !lhs.condition, holds: { !lhs.holds($0) }, text: "!\(lhs.text)")
        }
    }
    let c = customers.randomElement(using: &random)!
    let f = fragments.randomElement(using: &random)!
    let q = Int.random(in: -1...4, using: &random)
    let d = discounts.randomElement(using: &random)!
    let someD = discounts.compactMap { $0 }.randomElement(using: &random)!
    switch Int.random(in: 0..<18, using: &random) {
    case 0: return Case(condition: \.customer == c, holds: { $0.customer == c }, text: "customer == \(c)")
    case 1: return Case(condition: \.customer != c, holds: { $0.customer != c }, text: "customer != \(c)")
    case 2: return Case(condition: \.quantity < q, holds: { $0.quantity < q }, text: "quantity < \(q)")
    case 3: return Case(condition: \.quantity <= q, holds: { $0.quantity <= q }, text: "quantity <= \(q)")
    case 4: return Case(condition: \.quantity > q, holds: { $0.quantity > q }, text: "quantity > \(q)")
    case 5: return Case(condition: \.quantity >= q, holds: { $0.quantity >= q }, text: "quantity >= \(q)")
    case 6: return Case(condition: \.discount == d, holds: { $0.discount == d }, text: "discount == \(String(describing: d))")
    case 7: return Case(condition: \.discount != d, holds: { $0.discount != d }, text: "discount != \(String(describing: d))")
    case 8: return Case(condition: \.discount == nil, holds: { $0.discount == nil }, text: "discount == nil")
    case 9: return Case(condition: \.discount != nil, holds: { $0.discount != nil }, text: "discount != nil")
    case 10: return Case(condition: \.discount > someD, holds: { $0.discount.map { $0 > someD } ?? false }, text: "discount > \(someD)")
    case 11: return Case(condition: \.discount <= someD, holds: { $0.discount.map { $0 <= someD } ?? false }, text: "discount <= \(someD)")
    case 12: return Case(condition: .contains(\.customer, f), holds: { occurs(f, in: $0.customer) }, text: "contains \(f)")
    case 13: return Case(condition: .hasPrefix(\.customer, f), holds: { $0.customer.hasPrefix(f) }, text: "hasPrefix \(f)")
    case 14: return Case(condition: .hasSuffix(\.customer, f), holds: { $0.customer.hasSuffix(f) }, text: "hasSuffix \(f)")
    case 16:
        return Case(condition: .contains(\.customer, f, ignoringCase: true),
                    holds: { occurs(f.lowercased(), in: $0.customer.lowercased()) }, text: "contains \(f) ignoring case")
    case 15:
        let list = (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 0...3, using: &random) }
        return Case(condition: .in(\.quantity, list), holds: { list.contains($0.quantity) }, text: "quantity in \(list)")
    default:
        let list = (0..<Int.random(in: 0...2, using: &random)).map { _ in discounts.randomElement(using: &random)! }
        return Case(condition: .notIn(\.discount, list), holds: { !list.contains($0.discount) }, text: "discount notIn \(list)")
    }
}

@Suite("Typed conditions, paging and aggregates (public API)")
struct TypedQueryTests {
    let directory: String
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-typed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/purchases.sqlite"
    }

    /// Opens a store on the test's file, whose turns run when the test advances `scheduler`.
    private func open(_ scheduler: TestScheduler = TestScheduler()) throws -> Store {
        try Store(path: path, scheduler: scheduler, watchesExternalChanges: false)
    }

    /// Random conditions (seeded) select exactly the rows the same test written in Swift selects.
    @Test(arguments: [1, 2, 3, 4, 5])
    func conditionsSelectWhatTheSwiftTestSelects(seed: Int) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SeededRandom(seed: UInt64(seed))
        let store = try open()
        var orders: [Purchase] = []
        for _ in 0..<60 {
            let order = Purchase()
            order.customer = customers.randomElement(using: &random)!
            order.quantity = Int.random(in: 0...3, using: &random)
            order.discount = discounts.randomElement(using: &random)!
            try store.insert(order)
            orders.append(order)
        }
        try store.flush()
        for _ in 0..<150 {
            let test = randomCase(&random, depth: 3)
            let fetched = try store.fetch(Purchase.self, where: test.condition).map { ObjectIdentifier($0) }
            let expected = orders.filter(test.holds).map { ObjectIdentifier($0) }
            #expect(fetched == expected, "seed \(seed): \(test.text.debugDescription): missing \(orders.filter { expected.contains(ObjectIdentifier($0)) && !fetched.contains(ObjectIdentifier($0)) }.map { $0.customer.unicodeScalars.map { String($0.value, radix: 16) } }), extra \(orders.filter { !expected.contains(ObjectIdentifier($0)) && fetched.contains(ObjectIdentifier($0)) }.map { $0.customer.unicodeScalars.map { String($0.value, radix: 16) } })")
            #expect(try store.count(Purchase.self, where: test.condition) == expected.count, "seed \(seed): \(test.text.debugDescription)")
        }
        try store.close()
    }

    /// A NUL is a character like any other, in the text looked for and in the rows: the
    /// conditions do not stop at it.
    @Test func textConditionsDoNotStopAtANul() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try open()
        for name in ["a", "a\0b", "a\0", "x\0c", "b"] {
            let order = Purchase()
            order.customer = name
            try store.insert(order)
        }
        try store.flush()
        func names(_ condition: Condition<Purchase>) throws -> [String] {
            try store.fetch(Purchase.self, where: condition).map(\.customer)
        }
        #expect(try names(.contains(\.customer, "\0b")) == ["a\0b"])
        #expect(try names(.hasSuffix(\.customer, "\0c")) == ["x\0c"])
        #expect(try names(.hasPrefix(\.customer, "a\0")) == ["a\0b", "a\0"])
        #expect(try names(.hasSuffix(\.customer, "b")) == ["a\0b", "b"], "the row's NUL does not hide what follows it")
        #expect(try names(.contains(\.customer, "c")) == ["x\0c"])
        #expect(try names(.contains(\.customer, "\0B", ignoringCase: true)) == ["a\0b"])
        #expect(try names(!.hasPrefix(\.customer, "a")) == ["x\0c", "b"])
        try store.close()
    }

    /// A value is bound, never spliced: text that looks like SQL is just text.
    @Test func valuesAreBoundNotSpliced() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try open()
        let order = Purchase()
        order.customer = "'); DROP TABLE \"Purchase\"; --"
        try store.insert(order)
        let found = try store.fetch(Purchase.self, where: \.customer == "'); DROP TABLE \"Purchase\"; --")
        #expect(found.map { ObjectIdentifier($0) } == [ObjectIdentifier(order)])
        #expect(try store.count(Purchase.self) == 1)
        try store.close()
    }

    /// A key path that is not a persisted stored property is a clear error, not a wrong query,
    /// and the error names the property by its name (a key path prints none on Linux) and says
    /// what it is, whatever the query does with it.
    @Test func aComputedOrTransientPropertyIsAnErrorThatNamesIt() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try open()
        func message(_ body: () throws -> Void) -> String {
            do { try body() } catch let error as StoreError { return error.description } catch { return "\(error)" }
            return "(no error)"
        }
        let computed = "Purchase.doubled is a computed property, so it has no column"
        let transient = "Purchase.draft is @Transient, so it has no column"
        let messages = [
            (message { _ = try store.fetch(Purchase.self, where: \.doubled > 2) }, computed + ": a query cannot compare it"),
            (message { _ = try store.fetch(Purchase.self, where: \.draft == "x") }, transient + ": a query cannot compare it"),
            (message { _ = try store.count(Purchase.self, where: .hasPrefix(\.draft, "x")) }, transient + ": a query cannot compare it"),
            (message { _ = try store.fetch(Purchase.self, orderBy: \.doubled) }, computed + ": a query cannot order by it"),
            (message { _ = try store.fetch(Purchase.self, orderBy: \.draft) }, transient + ": a query cannot order by it"),
            (message { _ = try store.sum(\Purchase.doubled) }, computed + ": a query cannot aggregate (sum) it"),
            (message { _ = try store.position(of: Purchase(), orderBy: \.draft) }, transient + ": a query cannot order by it"),
        ]
        for (message, expected) in messages {
            #expect(message.hasPrefix(expected), "\(message)")
            #expect(!message.contains("0x") && !message.contains("make it"), "\(message)")
        }
        try store.close()
    }

    /// Aggregates, over what was committed.
    @Test func aggregates() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try open()
        #expect(try store.sum(\Purchase.quantity) == nil)
        #expect(try store.max(\Purchase.quantity) == nil)
        for (customer, quantity, discount) in [("Ada", 3, 0.5), ("Ada", 1, nil), ("Grace", 5, 0.25)] as [(String, Int, Double?)] {
            let order = Purchase()
            order.customer = customer
            order.quantity = quantity
            order.discount = discount
            try store.insert(order)
        }
        try store.flush()
        #expect(try store.count(Purchase.self) == 3)
        #expect(try store.sum(\Purchase.quantity, where: \.customer == "Ada") == 4)
        #expect(try store.min(\Purchase.quantity) == 1)
        #expect(try store.max(\Purchase.quantity) == 5)
        #expect(try store.sum(\Purchase.discount) == 0.75)
        #expect(try store.max(\Purchase.customer) == "Grace")
        try store.close()
    }

    /// A page of a live query follows the rows as they move, including rows another connection
    /// inserts; a live count follows too.
    @Test func aLivePageAndALiveCountFollowChangesMadeElsewhere() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scheduler = TestScheduler()
        let store = try open(scheduler)
        for quantity in [10, 20, 30, 40] {
            let order = Purchase()
            order.customer = "q\(quantity)"
            order.quantity = quantity
            try store.insert(order)
        }
        try store.flush()
        var pages: [[String]] = []
        var counts: [Int] = []
        let page = store.observe(Purchase.self, where: \.quantity >= 20, orderBy: \.quantity, limit: 2, offset: 1)
            .sink(next: { pages.append($0.map(\.customer)) }, error: { Issue.record($0) })
        let count = store.observeCount(Purchase.self, where: \.quantity >= 20)
            .sink(next: { counts.append($0) }, error: { Issue.record($0) })

        let other = try open()
        let newcomer = Purchase()
        newcomer.customer = "q25"
        newcomer.quantity = 25
        try other.insert(newcomer)    // another connection: q20, q25, q30, q40
        try other.close()
        try store.refresh()
        scheduler.advance()

        #expect(pages == [["q30", "q40"], ["q25", "q30"]])
        #expect(counts == [3, 4])
        page.dispose()
        count.dispose()
        try store.close()
    }
}
