import Dispatch
import Testing
import Tether
import TetherTestSupport

@Suite("Binding and channels")
struct BindTests {
    @Test func bindAssignsEachValue() {
        let invoice = HandInvoice()
        let quantities = Subject<Int, Never>()
        bind(quantities.signal, to: invoice, \.quantity)
        quantities.sendNext(4)
        #expect(invoice.quantity == 4)
        quantities.sendNext(9)
        #expect(invoice.quantity == 9)
    }

    @Test func nilValueReplacesNil() {
        let invoice = HandInvoice()
        invoice.discount = 0.2
        let discounts = Subject<Double?, Never>()
        bind(discounts.signal, to: invoice, \.discount, nilValue: 0)
        discounts.sendNext(nil)
        #expect(invoice.discount == 0)
        discounts.sendNext(0.1)
        #expect(invoice.discount == 0.1)

        let quantities = Subject<Int?, Never>()
        bind(quantities.signal, to: invoice, \.quantity, nilValue: 1)
        quantities.sendNext(5)
        quantities.sendNext(nil)
        #expect(invoice.quantity == 1)
    }

    @Test func bindingDoesNotKeepTheModelAliveAndEndsWithIt() {
        let freed = Flag()
        var invoice: HandInvoice? = HandInvoice(onDeinit: { freed.set() })
        let quantities = Subject<Int, Never>()
        let binding = bind(quantities.signal, to: invoice!, \.quantity)
        #expect(quantities.subscriberCount == 1)
        invoice = nil
        #expect(freed.isSet)
        #expect(binding.isDisposed)
        #expect(quantities.subscriberCount == 0)
    }

    @Test func failingSignalEndsTheBindingAndIsReported() {
        let invoice = HandInvoice()
        let source = Subject<Int, TestError>()
        let reported = Recorder<String, Never>()
        let binding = bind(source.signal, to: invoice, \.quantity, onError: { reported.append(.next($0.description)) })
        source.sendNext(3)
        source.sendError(.boom)
        #expect(invoice.quantity == 3, "the model keeps its last value")
        #expect(binding.isDisposed)
        #expect(reported.values.count == 1)
        #expect(reported.values.first?.contains("HandInvoice.quantity") == true)
    }

    @Test func valueFromAnotherThreadIsRefused() {
        let invoice = HandInvoice()
        let source = Subject<Int, Never>()
        let reported = Recorder<String, Never>()
        let binding = bind(source.signal, to: invoice, \.quantity, onError: { reported.append(.next($0.description)) })
        let done = DispatchSemaphore(value: 0)
        Thread_detach { source.sendNext(42); done.signal() }
        done.wait()
        #expect(invoice.quantity == 1, "not assigned off the model's thread")
        #expect(binding.isDisposed)
        #expect(reported.values.count == 1)
    }

    @Test func valueFromAnotherThreadIsDeliveredOnTheModelsScheduler() {
        let invoice = HandInvoice()
        let scheduler = TestScheduler()   // runs its work on the thread that advances it: ours
        let source = Subject<Int, Never>()
        bind(source.signal, to: invoice, \.quantity, on: scheduler)
        let done = DispatchSemaphore(value: 0)
        Thread_detach { source.sendNext(42); done.signal() }
        done.wait()
        #expect(invoice.quantity == 1)
        scheduler.advance()
        #expect(invoice.quantity == 42)
    }

    @Test func channelsKeepModelAndFieldInStepWithoutEcho() {
        let invoice = HandInvoice()
        let field = Channel<Int>()
        let shown = Recorder<Int, Never>()
        shown.record(field.leading.signal)       // what the field displays
        let sentToModel = Recorder<Int, Never>()
        sentToModel.record(observe(invoice, \.quantity))
        bind(channel(invoice, \.quantity), field.following)
        #expect(shown.values == [1], "the model's value reaches the field first")
        field.leading.sendNext(5)                 // the user types 5
        #expect(invoice.quantity == 5)
        #expect(shown.values == [1], "no echo back to the field")
        invoice.quantity = 8                      // the model changes elsewhere
        #expect(shown.values == [1, 8])
        #expect(sentToModel.values == [1, 5, 8])
    }

    @Test func channelMapRefusesUnparsableText() {
        let invoice = HandInvoice()
        let field = Channel<String>()
        let shown = Recorder<String, Never>()
        shown.record(field.leading.signal)
        bind(channel(invoice, \.quantity).map(forward: { String($0) }, backward: { Int($0) }), field.following)
        field.leading.sendNext("12")
        field.leading.sendNext("12x")             // not a number: the model keeps 12
        #expect(invoice.quantity == 12)
        #expect(shown.values == ["1"])
    }
}

/// Runs `body` on a new thread (not the test's).
func Thread_detach(_ body: @escaping @Sendable () -> Void) {
    DispatchQueue.global().async(execute: body)
}
