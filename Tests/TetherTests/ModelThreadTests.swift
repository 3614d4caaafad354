import Dispatch
import Testing
import Tether

@Suite("Models and threads")
struct ModelThreadTests {
    @Test func disposingObservationsFromOtherThreadsWhileTheOwnerWrites() {
        let invoice = HandInvoice()
        invoice.unitPrice = 1
        let subscriptions = (0..<200).map { index in
            index.isMultiple(of: 2)
                ? observe(invoice, \.quantity).subscribe(next: { _ in })
                : observe(invoice, \.total).subscribe(next: { _ in })
        }
        let group = DispatchGroup()
        let chunks = stride(from: 0, to: subscriptions.count, by: 25).map { Array(subscriptions[$0..<min($0 + 25, subscriptions.count)]) }
        for chunk in chunks {
            DispatchQueue.global().async(group: group) {
                for subscription in chunk { subscription.dispose() }
            }
        }
        for value in 0..<5_000 { invoice.quantity = value }   // the owner keeps writing
        group.wait()
        #expect((0..<3).map { invoice._$registrar.observerCount(index: $0) } == [0, 0, 0])
        let last = Recorder<Double>()
        last.record(observe(invoice, \.total))
        #expect(last.values == [4_999])
    }

    @Test func adoptHandsAModelToAnotherThread() {
        let invoice = HandInvoice()
        let moved = _Handoff(invoice)
        let done = DispatchSemaphore(value: 0)
        let seen = Recorder<Int>()
        DispatchQueue.global().async {
            let invoice = moved.model
            adopt(invoice)
            let source = Subject<Int, Never>()
            bind(source.signal, to: invoice, \.quantity)
            source.sendNext(9)
            seen.append(.next(invoice.quantity))
            done.signal()
        }
        done.wait()
        #expect(seen.values == [9], "after adopt, bindings assign on the new owner thread")
    }
}

/// Hands a model to another thread on purpose (the test does not touch it meanwhile).
final class _Handoff: @unchecked Sendable {
    // Safe: the creating thread stops using the model before the receiving thread starts.
    let model: HandInvoice
    init(_ model: HandInvoice) { self.model = model }
}
