import Observation
import Testing
import Tether
import TetherTestSupport

@Model
final class Invoice {
    var customer = ""
    var quantity = 1
    var unitPrice = 0.0
    var discount: Double? = nil
    @Transient var draftNote = ""
    @ModelIgnored var renderCount = 0
    var total: Double { Double(quantity) * unitPrice * (1 - (discount ?? 0)) }
}

@Model
final class Customer {
    var name: String
    init(name: String) { self.name = name }
}

@Model
final class Order {
    var customer: Customer
    var express = false
    var note = ""
    init(customer: Customer) { self.customer = customer }
    /// A computed property with a branch: it depends on `note` only when `express` is set.
    var label: String { express ? "EXPRESS \(note)" : customer.name }
}

@Suite("@Model models")
struct ModelMacroIntegrationTests {
    @Test func schemaRecordsTrackedPropertiesTypesAndTransience() {
        let schema = Invoice._$schema
        #expect(schema.name == "Invoice")
        #expect(schema.properties.map(\.name) == ["customer", "quantity", "unitPrice", "discount", "draftNote"])
        #expect(schema.properties.map(\.index) == [0, 1, 2, 3, 4])
        #expect(schema.properties.map(\.isTransient) == [false, false, false, false, true])
        #expect(schema.persistedProperties.map(\.name) == ["customer", "quantity", "unitPrice", "discount"])
        #expect(ObjectIdentifier(schema.properties[1].valueType) == ObjectIdentifier(Int.self))
        #expect(ObjectIdentifier(schema.properties[3].valueType) == ObjectIdentifier(Double?.self))
        #expect(schema.index(of: \Invoice.unitPrice) == 2)
        #expect(schema.property(for: \Invoice.discount)?.name == "discount")
        #expect(schema.index(of: \Invoice.total) == nil, "computed properties are not in the schema")
        #expect(schema.index(of: \Invoice.renderCount) == nil, "ignored properties are not in the schema")
    }

    @Test func schemaPropertiesReadAndWriteThroughTheTrackedAccessors() {
        let invoice = Invoice()
        let quantities = Recorder<Int, Never>()
        quantities.record(observe(invoice, \.quantity))
        let quantity = Invoice._$schema.properties[1]
        quantity.set(invoice, 7)
        #expect(quantity.get(invoice) as? Int == 7)
        #expect(quantities.values == [1, 7], "a write through the schema notifies like any write")
        Invoice._$schema.properties[3].set(invoice, Double?.some(0.25) as Any)
        #expect(invoice.discount == 0.25)
    }

    @Test func theIssuesExampleWorksAsShown() {
        let invoice = Invoice()
        let totals = Recorder<Double, Never>()
        totals.record(observe(invoice, \.total))
        invoice.unitPrice = 10
        invoice.quantity = 3
        invoice.discount = 0.1
        invoice.draftNote = "call back"          // transient: observable, no effect on total
        #expect(totals.values == [0, 10, 30, 27])
        let notes = Recorder<String, Never>()
        notes.record(observe(invoice, \.draftNote))
        invoice.draftNote = "done"
        #expect(notes.values == ["call back", "done"])
    }

    @Test func nestedKeyPathFollowsTheCurrentIntermediateObject() {
        let ada = Customer(name: "Ada")
        let grace = Customer(name: "Grace")
        let order = Order(customer: ada)
        let names = Recorder<String, Never>()
        names.record(observe(order, \.customer.name))
        ada.name = "Ada L."
        order.customer = grace                    // rewired to grace
        ada.name = "Ada Lovelace"                 // no longer observed: nothing
        grace.name = "Grace H."
        #expect(names.values == ["Ada", "Ada L.", "Grace", "Grace H."])
        #expect(ada._$registrar.observerCount(index: 0) == 0, "the old customer is no longer observed")
    }

    @Test func computedPropertyReTracksWhenItsBranchChanges() {
        let order = Order(customer: Customer(name: "Ada"))
        let labels = Recorder<String, Never>()
        labels.record(observe(order, \.label))
        order.note = "fragile"                    // not read yet: no recomputation sends nothing
        order.express = true
        order.note = "rush"
        order.customer.name = "Grace"             // not read in this branch
        order.express = false
        #expect(labels.values == ["Ada", "EXPRESS fragile", "EXPRESS rush", "Grace"])
    }

    @Test func aModelIsObservable() {
        func requiresObservable(_: some Observable) {}
        requiresObservable(Invoice())
    }
}

/// The Observation bridge is a process-wide switch: these tests run one at a time, and the one
/// that turns it off turns it back on. No other test depends on it.
@Suite("Observation interop", .serialized)
struct ObservationInteropTests {
    @Test func observationTrackingIsNotifiedOfChanges() {
        let invoice = Invoice()
        let fired = Flag()
        withObservationTracking {
            _ = invoice.quantity
        } onChange: {
            fired.set()
        }
        invoice.unitPrice = 3
        #expect(!fired.isSet, "unitPrice was not read")
        invoice.quantity = 2
        #expect(fired.isSet)
    }

    @Test func withTheBridgeOffObservationIsNotToldButTetherObserversStillAre() {
        #expect(ObservationBridge.isEnabled, "on by default")
        ObservationBridge.isEnabled = false
        defer { ObservationBridge.isEnabled = true }
        let invoice = Invoice()
        let fired = Flag()
        withObservationTracking {
            _ = invoice.quantity
        } onChange: {
            fired.set()
        }
        let quantities = Recorder<Int, Never>()
        quantities.record(observe(invoice, \.quantity))
        invoice.quantity = 2
        #expect(!fired.isSet)
        #expect(quantities.values == [1, 2])
    }
}
