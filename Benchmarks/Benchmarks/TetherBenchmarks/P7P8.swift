// P7 and P8: related models. An invoice with a customer (to-one) and lines (to-many, ordered by
// position); a line's amount is quantity × unit price, the invoice's total the sum of its lines'.
//
// - P7: load one invoice that is not in memory with its customer and its 100 lines. Tether:
//   `store.load(P7Invoice.self, id:)` (the invoice, then its customer, then its lines: one query
//   for their ids, one for the rows), each model dropped before the next load. Raw C API: the
//   same three reads (invoice by id, customer by id, lines by invoice id in order) with
//   statements prepared once, into plain objects linked both ways (HandWrittenSQLite.swift). GRDB:
//   its associations, `including(optional:)` and `including(all:)` into a decoded struct
//   (GRDBRecords.swift). µs per load, 1,000 loads per sample, the 50 invoices loaded in turn.
// - P8: change one line's quantity in an invoice of 1,000 lines; `observe(invoice, \.total)`
//   delivers the new total. Tether: stored models (each change also recorded for write-through;
//   the commit is not part of the loop), and the same models not stored. Hand-written: each
//   line's `didSet` asks its invoice to add its lines up again and call back if the total
//   changed. µs per change, 1,000 changes per sample.
import Benchmark
import TetherSQLite

@Model
final class P7Customer {
    var name = ""
}
extension P7Customer: PersistentModel {}

@Model
final class P7Invoice {
    var number = 0
    var customer: P7Customer? = nil
    @Relationship(inverse: \P7Line.invoice, orderBy: \P7Line.position)
    var lines: [P7Line] = []
    var total: Int { lines.reduce(0) { $0 + $1.amount } }
}
extension P7Invoice: PersistentModel {}

@Model
final class P7Line {
    @Relationship var invoice: P7Invoice?
    var position = 0
    var text = ""
    var quantity = 1
    var unitPrice = 0
    var amount: Int { quantity * unitPrice }
}
extension P7Line: PersistentModel {}

/// P7's file: 50 invoices of 100 lines each, every invoice with its own customer, written by a
/// store (so the tables, their indexes and foreign keys are Tether's, and the same for all).
let p7Invoices = 50
let p7Lines = 100

func makeP7File(_ files: BenchmarkFiles) throws -> String {
    let path = files.fresh("p7")
    let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
    for number in 1...p7Invoices {
        let customer = P7Customer()
        customer.name = "customer \(number)"
        try store.insert(customer)
        let invoice = P7Invoice()
        invoice.number = number
        invoice.customer = customer
        invoice.lines = (0..<p7Lines).map { k in
            let line = P7Line()
            line.position = p7Lines - k   // stored in reverse: the order comes from the sort
            line.text = "line \(k) of \(number)"
            line.quantity = k + 1
            line.unitPrice = number
            return line
        }
        try store.insert(invoice)
    }
    try store.close()
    return path
}

/// The expected total of invoice `number`: Σ (k + 1) × number.
func p7Total(_ number: Int) -> Int { number * p7Lines * (p7Lines + 1) / 2 }

/// Checks a loaded invoice: its customer, its lines in position order, its total.
func checkP7(_ what: String, number: Int, customer: String?, positions: [Int], total: Int) {
    precondition(customer == "customer \(number)", "\(what): customer \(customer ?? "nil") for invoice \(number)")
    precondition(positions == Array(1...p7Lines), "\(what): lines out of order for invoice \(number)")
    precondition(total == p7Total(number), "\(what): total \(total) for invoice \(number)")
}

@inline(never)
func p7Tether(_ store: Store, id: Int64) throws -> Int {
    guard let invoice = try store.load(P7Invoice.self, id: id) else { preconditionFailure("P7 Tether: no invoice \(id)") }
    let number = invoice.number
    if id % 7 == 0 {
        checkP7("P7 Tether", number: number, customer: invoice.customer?.name, positions: invoice.lines.map(\.position), total: invoice.total)
    }
    return number + invoice.lines.count + (invoice.customer == nil ? 0 : 1)
}

// MARK: P8

/// P8 by hand: a line tells its invoice when its quantity or price changes; the invoice adds its
/// lines up again and calls back if the total changed.
final class HandInvoice {
    var lines: [HandLine] = []
    var total = 0
    var onTotal: ((Int) -> Void)?

    func recompute() {
        var sum = 0
        for line in lines { sum += line.quantity * line.unitPrice }
        if sum != total {
            total = sum
            onTotal?(sum)
        }
    }
}

final class HandLine {
    weak var invoice: HandInvoice?
    var quantity = 1 { didSet { invoice?.recompute() } }
    var unitPrice = 0 { didSet { invoice?.recompute() } }
}

let p8Lines = 1_000

func registerP7P8() {
    let perLoad = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 2, scalingFactor: .kilo,
                                          maxDuration: .seconds(3), maxIterations: 200)
    persistenceBenchmark("P7 load an invoice, its customer and 100 lines — Tether", configuration: perLoad) { files in
        var store: Store?
        return { benchmark in
            if store == nil {
                store = try Store(path: try makeP7File(files), scheduler: TestScheduler(), watchesExternalChanges: false)
                try checkSettings("P7 Tether", store!)
            }
            var sum = 0
            benchmark.startMeasurement()
            for k in benchmark.scaledIterations { sum &+= try p7Tether(store!, id: Int64(k % p7Invoices + 1)) }
            benchmark.stopMeasurement()
            precondition(sum > 0)
        }
    }
    persistenceBenchmark("P7 load an invoice, its customer and 100 lines — Raw", configuration: perLoad) { files in
        var loader: RawRelatedLoader?
        return { benchmark in
            if loader == nil {
                let database = RawDatabase(path: try makeP7File(files))
                checkSettings("P7 raw", database)
                loader = RawRelatedLoader(database)
            }
            var sum = 0
            benchmark.startMeasurement()
            for k in benchmark.scaledIterations { sum &+= p7Raw(loader!, id: Int64(k % p7Invoices + 1)) }
            benchmark.stopMeasurement()
            precondition(sum > 0)
        }
    }
    persistenceBenchmark("P7 load an invoice, its customer and 100 lines — GRDB", configuration: perLoad) { files in
        var database: GRDBDatabase?
        return { benchmark in
            if database == nil {
                database = GRDBDatabase(path: try makeP7File(files))
                checkSettings("P7 GRDB", database!)
            }
            var sum = 0
            benchmark.startMeasurement()
            for k in benchmark.scaledIterations { sum &+= p7GRDB(database!, id: Int64(k % p7Invoices + 1)) }
            benchmark.stopMeasurement()
            precondition(sum > 0)
        }
    }

    let perChange = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 2, scalingFactor: .kilo,
                                            maxDuration: .seconds(3), maxIterations: 200)
    for stored in [true, false] {
        let version = stored ? "Tether (stored)" : "Tether (not stored)"
        persistenceBenchmark("P8 one line of 1,000 changes -> total — \(version)", configuration: perChange) { files in
            var state: (store: Store?, invoice: P7Invoice, lines: [P7Line], subscription: any Disposable, totals: Totals)?
            return { benchmark in
                if state == nil {
                    let invoice = P7Invoice()
                    invoice.lines = (0..<p8Lines).map { k in
                        let line = P7Line()
                        line.position = k
                        line.unitPrice = k % 7 + 1
                        return line
                    }
                    var store: Store?
                    if stored {
                        store = try Store(path: files.fresh("p8"), scheduler: TestScheduler(), watchesExternalChanges: false)
                        try store!.insert(invoice)
                        try store!.flush()
                    }
                    let totals = Totals()
                    let subscription = observe(invoice, \.total).subscribe(next: { totals.record($0) })
                    state = (store, invoice, invoice.lines, subscription, totals)
                }
                let (_, invoice, lines, _, totals) = state!
                let before = totals.count
                benchmark.startMeasurement()
                for k in benchmark.scaledIterations { lines[k % p8Lines].quantity &+= 1 }
                benchmark.stopMeasurement()
                precondition(totals.count - before == benchmark.scaledIterations.count, "P8 \(version): a change was not delivered")
                precondition(totals.last == invoice.lines.reduce(0) { $0 + $1.quantity * $1.unitPrice }, "P8 \(version): wrong total")
            }
        }
    }
    persistenceBenchmark("P8 one line of 1,000 changes -> total — Hand", configuration: perChange) { _ in
        var state: (invoice: HandInvoice, totals: Totals)?
        return { benchmark in
            if state == nil {
                let invoice = HandInvoice()
                invoice.lines = (0..<p8Lines).map { k in
                    let line = HandLine()
                    line.unitPrice = k % 7 + 1
                    line.invoice = invoice
                    return line
                }
                let totals = Totals()
                invoice.onTotal = { totals.record($0) }
                invoice.recompute()
                state = (invoice, totals)
            }
            let (invoice, totals) = state!
            let before = totals.count
            benchmark.startMeasurement()
            for k in benchmark.scaledIterations { invoice.lines[k % p8Lines].quantity &+= 1 }
            benchmark.stopMeasurement()
            precondition(totals.count - before == benchmark.scaledIterations.count, "P8 Hand: a change was not delivered")
            precondition(totals.last == invoice.lines.reduce(0) { $0 + $1.quantity * $1.unitPrice }, "P8 Hand: wrong total")
        }
    }
}

/// The totals a subscriber received: how many, and the last. Why `@unchecked Sendable` is safe:
/// P8 changes its models and receives their totals on the benchmark's one thread.
final class Totals: @unchecked Sendable {
    private(set) var count = 0
    private(set) var last = 0
    func record(_ total: Int) {
        count += 1
        last = total
    }
}
