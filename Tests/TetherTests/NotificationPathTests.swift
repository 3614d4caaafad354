import Dispatch
import Observation
import Synchronization
import Testing
import Tether
import TetherTestSupport

// The edges of the fast notification path: the owner thread's copies of the observer lists,
// the comparison of each computed evaluation with the previous one, and the Observation bridge
// reporting writes only for properties Observation can have seen.

/// Sets a flag when freed (to check that an observer's closure was released).
final class Tracked: Sendable {
    let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// A getter whose reads change with the model's state in every way the dependency comparison
/// handles: fewer reads (a prefix), more reads, another order, and the same property twice.
@Model
final class Shapes {
    var mode = 0
    var a = 1
    var b = 10
    var c = 100
    var value: Int {
        switch mode {
        case 0: return a + b          // mode, a, b
        case 1: return a              // mode, a (a prefix of the above)
        case 2: return b + a + c      // mode, b, a, c (another order, one more)
        default: return a + a + c     // mode, a, a, c (a read twice)
        }
    }
}

/// A getter with a side effect: it clamps `raw`, a property it reads.
@Model
final class Clamped {
    var raw = 0
    var limit = 10
    var clamped: Int {
        if raw > limit { raw = limit }
        return raw
    }
}

/// Declared in an extension: `@Model` does not see it, so it is observed through its key path.
extension Shapes {
    var doubled: Int { value * 2 }
}

@Suite("Notification path")
struct NotificationPathTests {
    // MARK: Computed properties: getters recorded by @Model

    @Test func theSchemaRecordsTheGettersOfComputedPropertiesDeclaredInTheClass() {
        let schema = Shapes._$schema
        #expect(schema.computedProperties.map(\.name) == ["value"])
        let shapes = Shapes()
        shapes.a = 5
        #expect(schema.getter(for: \Shapes.value, as: Int.self)?(shapes) == 15)
        #expect(schema.getter(for: \Shapes.value, as: Double.self) == nil, "another value type")
        #expect(schema.getter(for: \Shapes.doubled, as: Int.self) == nil, "declared in an extension")
        #expect(schema.getter(for: \Shapes.a, as: Int.self) == nil, "stored")
    }

    @Test func aComputedPropertyDeclaredInAnExtensionIsObservedThroughItsKeyPath() {
        let shapes = Shapes()
        let doubled = Recorder<Int, Never>()
        doubled.record(observe(shapes, \.doubled))
        shapes.a = 2
        shapes.mode = 1
        shapes.b = 7                                   // not read in mode 1
        #expect(doubled.values == [22, 24, 4])
    }

    // MARK: Computed properties: the comparison with the last evaluation

    @Test func computedPropertyFollowsEveryChangeOfItsReads() {
        let shapes = Shapes()
        let values = Recorder<Int, Never>()
        values.record(observe(shapes, \.value))
        func observed() -> [Int] { (0..<4).map { shapes._$registrar.observerCount(index: $0) } }
        #expect(observed() == [1, 1, 1, 0])           // mode, a, b

        shapes.mode = 1                                // a: reads mode, a
        #expect(observed() == [1, 1, 0, 0])
        shapes.b = 20                                  // no longer read: nothing
        shapes.a = 2
        shapes.mode = 2                                // b + a + c
        #expect(observed() == [1, 1, 1, 1])
        shapes.c = 200
        shapes.b = 30
        shapes.mode = 3                                // a + a + c
        #expect(observed() == [1, 1, 0, 1])
        shapes.a = 3
        shapes.b = 40                                  // not read
        shapes.mode = 0                                // a + b again
        #expect(observed() == [1, 1, 1, 0])
        shapes.b = 50
        #expect(values.values == [11, 1, 2, 122, 222, 232, 204, 206, 43, 53])
    }

    @Test func computedPropertyOverAReplacedModelFollowsTheNewOne() {
        // Each replaced customer is freed at once, so a new one may get its address: the
        // dependency on the old one must not be mistaken for one on the new one.
        let order = Order(customer: Customer(name: "A"))
        let names = Recorder<String, Never>()
        names.record(observe(order, \.customer.name))
        var expected = ["A"]
        for round in 0..<50 {
            order.customer = Customer(name: "C\(round)")
            order.customer.name = "D\(round)"
            expected += ["C\(round)", "D\(round)"]
        }
        #expect(names.values == expected)
        #expect(order.customer._$registrar.observerCount(index: 0) == 1)
    }

    @Test func computedObservationEndsWithItsModelAndReleasesItsObservers() {
        let customer = Customer(name: "A")
        let names = Recorder<String, Never>()
        do {
            let order = Order(customer: customer)
            names.record(observe(order, \.customer.name))
            #expect(customer._$registrar.observerCount(index: 0) == 1)
        }
        #expect(names.events == [.next("A"), .completed])
        #expect(customer._$registrar.observerCount(index: 0) == 0, "the freed order's observer is gone")
        customer.name = "B"
        #expect(names.values == ["A"])
    }

    @Test func aGetterThatChangesWhatItReadsIsEvaluatedAgainAfterwards() {
        let clamped = Clamped()
        let values = Recorder<Int, Never>()
        values.record(observe(clamped, \.clamped))
        clamped.raw = 15          // delivered to the getter, which writes raw = 10 meanwhile
        clamped.limit = 5         // the getter writes raw = 5 during its own evaluation
        clamped.raw = 3
        #expect(values.values == [0, 10, 5, 3])
        #expect(clamped.raw == 3)
        #expect((0..<2).map { clamped._$registrar.observerCount(index: $0) } == [1, 1])
    }

    // MARK: Observer lists: copies on the owner thread

    @Test func anObserverEndedDuringADeliveryIsReleasedWhenTheDeliveryEnds() {
        let invoice = HandInvoice()
        let freed = Flag()
        let seen = Recorder<Int, Never>()
        do {
            let tracked = Tracked(onDeinit: { freed.set() })
            observe(invoice, \.quantity).take(2).subscribe(next: { value in
                withExtendedLifetime(tracked) { seen.append(.next(value)) }
            })
        }
        #expect(!freed.isSet)
        invoice.quantity = 2          // take(2) ends inside this delivery
        #expect(seen.values == [1, 2])
        #expect(freed.isSet, "released when the delivery ended")
        #expect(invoice._$registrar.observerCount(index: 0) == 0)
        invoice.quantity = 3
        #expect(seen.values == [1, 2])
    }

    @Test func anObserverDisposedOnTheOwnerThreadIsReleasedAtOnce() {
        let invoice = HandInvoice()
        let freed = Flag()
        let subscription: any Disposable
        do {
            let tracked = Tracked(onDeinit: { freed.set() })
            subscription = observe(invoice, \.quantity).subscribe(next: { _ in withExtendedLifetime(tracked) {} })
        }
        invoice.quantity = 2          // the owner thread now delivers from its copy of the list
        subscription.dispose()
        #expect(freed.isSet)
    }

    @Test func anObserverDisposedOnAnotherThreadIsReleasedAtTheOwnersNextWrite() {
        let invoice = HandInvoice()
        let freed = Flag()
        let seen = Recorder<Int, Never>()
        let subscription: any Disposable
        do {
            let tracked = Tracked(onDeinit: { freed.set() })
            subscription = observe(invoice, \.quantity).subscribe(next: { value in
                withExtendedLifetime(tracked) { seen.append(.next(value)) }
            })
        }
        invoice.quantity = 2
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {   // `async`: never on the calling thread
            subscription.dispose()
            done.signal()
        }
        done.wait()
        #expect(invoice._$registrar.observerCount(index: 0) == 0, "removed at once")
        invoice.quantity = 3          // nobody observes: not delivered, and the copy is dropped
        #expect(seen.values == [1, 2])
        #expect(freed.isSet, "released by the owner thread's next write")
    }

    @Test func anEveryPropertyObserverAddedDuringADeliverySeesTheNestedChanges() {
        // An observer of `quantity` subscribes to every change, then sets `unitPrice`: the nested
        // delivery must reach the new observer, although the list of every-property observers
        // is being used by the outer delivery.
        let invoice = Invoice()
        let names = Recorder<String, Never>()
        let started = Flag()
        observe(invoice, \.quantity).subscribe(with: invoice) { invoice, quantity in
            guard quantity == 2, !started.isSet else { return }
            started.set()
            names.record(changes(of: invoice).map(\.name))
            invoice.unitPrice = 5
        }
        invoice.quantity = 2
        invoice.customer = "Ada"
        #expect(names.values == ["unitPrice", "customer"])
    }

    @Test func everyPropertyObserversComeAndGoBesideAPropertysOwnObserver() {
        // A delivery with nothing but the property's own observers takes a shorter path; an
        // every-property observer must be reached while it is subscribed, and only then.
        let invoice = Invoice()
        let quantities = Recorder<Int, Never>()
        let names = Recorder<String, Never>()
        let quantitySubscription = quantities.record(observe(invoice, \.quantity))
        invoice.quantity = 2                              // own observer only
        invoice.customer = "Ada"                          // nobody observes it
        let everything = names.record(changes(of: invoice).map(\.name))
        invoice.quantity = 3
        invoice.customer = "Grace"
        everything.dispose()
        invoice.quantity = 4                              // own observer only, again
        invoice.customer = "Alan"
        quantitySubscription.dispose()
        invoice.quantity = 5                              // nobody at all
        #expect(quantities.events == [.next(1), .next(2), .next(3), .next(4)])
        #expect(names.events == [.next("quantity"), .next("customer")])
        #expect(invoice._$registrar.observerCount(index: 1) == 0)
        #expect(invoice._$registrar.observerCount(index: nil) == 0)
    }

    @Test func aPropertyWrittenInATransactionBeforeAnyoneObservesItIsNotDeliveredAgain() {
        // Nobody observes `quantity` when the transaction writes it; an observer that subscribes
        // later in the transaction starts from the written value, and the transaction's end
        // has nothing more to deliver for it. A later write in the same transaction is
        // delivered once, at the end.
        let invoice = Invoice()
        let quantities = Recorder<Int, Never>()
        let prices = Recorder<Double, Never>()
        transaction {
            invoice.quantity = 2
            quantities.record(observe(invoice, \.quantity))
            prices.record(observe(invoice, \.unitPrice))
            invoice.unitPrice = 4
            invoice.unitPrice = 5
            #expect(prices.values == [0])
        }
        #expect(quantities.values == [2])
        #expect(prices.values == [0, 5])
    }

    @Test func aTransactionOpenOnAnotherThreadDoesNotHoldBackThisThreadsChanges() {
        // Transactions belong to their thread: while another thread sits inside one, a write here
        // is delivered at once, and the other thread's writes are delivered when it ends.
        let invoice = Invoice()
        let quantities = Recorder<Int, Never>()
        quantities.record(observe(invoice, \.quantity))
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let otherValues = Recorder<Int, Never>()
        DispatchQueue.global().async {
            let other = Invoice()
            otherValues.record(observe(other, \.quantity))
            transaction {
                other.quantity = 7
                inside.signal()
                release.wait()
            }
            finished.signal()
        }
        inside.wait()
        invoice.quantity = 2
        #expect(quantities.values == [1, 2], "delivered at once, while the other thread's transaction is open")
        #expect(otherValues.values == [1], "the other thread's change waits for its transaction's end")
        release.signal()
        finished.wait()
        #expect(otherValues.values == [1, 7])
    }

    @Test func observersAddedDuringADeliveryGetTheNextChangesOnly() {
        let invoice = Invoice()
        let late = Recorder<Int, Never>()
        let added = Flag()
        observe(invoice, \.quantity).subscribe(with: invoice) { invoice, quantity in
            guard quantity == 2, !added.isSet else { return }
            added.set()
            late.record(observe(invoice, \.quantity))   // its first value is the current one
        }
        invoice.quantity = 2
        invoice.quantity = 3
        #expect(late.values == [2, 3])
    }
}

/// Tests that need the Observation bridge on: they belong to the serialized "Observation
/// interop" suite, whose other test switches the bridge off for a moment.
extension ObservationInteropTests {
    @Test func observationRegisteredAfterUnobservedWritesIsNotified() {
        let invoice = Invoice()
        for value in 2...100 { invoice.quantity = value }   // nobody observes: Observation not told
        let fired = Flag()
        withObservationTracking {
            _ = invoice.quantity
        } onChange: {
            fired.set()
        }
        invoice.unitPrice = 2
        #expect(!fired.isSet)
        invoice.quantity = 101
        #expect(fired.isSet)
    }

    @Test func observationOfAPropertyWrittenInsideTheTrackedClosureIsNotified() {
        let invoice = Invoice()
        let fired = Flag()
        withObservationTracking {
            invoice.quantity = invoice.quantity + 1   // read, then written before tracking starts
        } onChange: {
            fired.set()
        }
        #expect(!fired.isSet)
        invoice.quantity = 10
        #expect(fired.isSet)
    }

    @Test func observationSeesAComputedPropertysInputs() {
        let invoice = Invoice()
        invoice.unitPrice = 2
        let fired = Flag()
        let total = withObservationTracking {
            invoice.total
        } onChange: {
            fired.set()
        }
        #expect(total == 2)
        invoice.customer = "Ada"
        #expect(!fired.isSet)
        invoice.discount = 0.5
        #expect(fired.isSet)
    }

    @Test func tethersOwnReadsAreNotReportedToObservation() {
        // Subscribing reads the current value, and a computed observer reads its inputs: those
        // reads are Tether's, not the tracked closure's.
        let invoice = Invoice()
        let fired = Flag()
        let quantities = Recorder<Int, Never>()
        let totals = Recorder<Double, Never>()
        withObservationTracking {
            quantities.record(observe(invoice, \.quantity))
            totals.record(observe(invoice, \.total))
        } onChange: {
            fired.set()
        }
        invoice.quantity = 2
        invoice.unitPrice = 3
        #expect(!fired.isSet)
        #expect(quantities.values == [1, 2])
        #expect(totals.values == [0, 6])
    }

    @Test func observationIsToldOfEachWriteInsideATransaction() {
        let invoice = Invoice()
        let fired = Flag()
        let quantities = Recorder<Int, Never>()
        quantities.record(observe(invoice, \.quantity))
        withObservationTracking {
            _ = invoice.quantity
        } onChange: {
            fired.set()
        }
        invoice.transaction {
            $0.quantity = 5
            #expect(fired.isSet, "Observation hears the write at once")
            #expect(quantities.values == [1], "Tether observers wait for the end")
            $0.quantity = 6
        }
        #expect(quantities.values == [1, 6])
    }

    @Test(.timeLimit(.minutes(1)))
    @MainActor
    func observationsSequenceSeesChanges() async {
        let invoice = Invoice()
        let box = _MainThreadModel(invoice)
        var iterator = Observations { box.model.quantity }.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        invoice.quantity = 2
        #expect(await iterator.next() == 2)
        invoice.quantity = 3
        invoice.quantity = 4
        #expect(await iterator.next() == 4)
    }
}

/// Carries a model created on the main actor into `Observations`' closure, which runs there too.
final class _MainThreadModel: @unchecked Sendable {
    // Safe: created and used only on the main actor (the test and the `Observations` closure,
    // which inherits the test's isolation).
    let model: Invoice
    init(_ model: Invoice) { self.model = model }
}
