import Observation
import Testing
import Tether
import TetherTestSupport

/// Observation's registrar of a model is made by the first read under the bridge, on its own;
/// observing the model later makes Tether's observer machinery, which takes it over. Observation
/// must be told of every change through both, in either order, and nothing may outlive the model.
extension ObservationInteropTests {
    @Test func aModelReadUnderObservationThenObservedStillNotifiesObservation() {
        let invoice = Invoice()
        let fired = Flag()
        withObservationTracking {
            _ = invoice.quantity
        } onChange: {
            fired.set()
        }
        let quantities = Recorder<Int, Never>()
        quantities.record(observe(invoice, \.quantity))     // Tether's machinery, made now
        invoice.quantity = 2
        #expect(fired.isSet, "the tracking installed before the machinery was made is told")
        #expect(quantities.values == [1, 2])

        let again = Flag()
        withObservationTracking {
            _ = invoice.quantity
        } onChange: {
            again.set()
        }
        invoice.quantity = 3
        #expect(again.isSet)
        #expect(quantities.values == [1, 2, 3])
    }

    @Test func aModelObservedThenReadUnderObservationNotifiesObservation() {
        let invoice = Invoice()
        let quantities = Recorder<Int, Never>()
        quantities.record(observe(invoice, \.quantity))
        let fired = Flag()
        withObservationTracking {
            _ = invoice.quantity
        } onChange: {
            fired.set()
        }
        invoice.unitPrice = 5
        #expect(!fired.isSet)
        invoice.quantity = 4
        #expect(fired.isSet)
        #expect(quantities.values == [1, 4])
    }

    @Test func aModelReadUnderObservationIsFreedWithWhatObservationHolds() {
        weak var freed: Invoice?
        let released = Flag()
        do {
            let invoice = Invoice()
            freed = invoice
            let tracked = Tracked(onDeinit: { released.set() })
            withObservationTracking {
                _ = invoice.quantity
            } onChange: {
                _ = tracked
            }
            #expect(freed != nil)
        }
        #expect(freed == nil, "the model and its registrars are freed")
        #expect(released.isSet, "and with Observation's registrar, the tracking's closure")
    }
}
