import Dispatch
import Foundation
import Synchronization
import Testing
import Tether
import TetherTestSupport

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
        let last = Recorder<Double, Never>()
        last.record(observe(invoice, \.total))
        #expect(last.values == [4_999])
    }

    @Test func adoptHandsAModelToAnotherThread() {
        let invoice = HandInvoice()
        let moved = _Handoff(invoice)
        let done = DispatchSemaphore(value: 0)
        let seen = Recorder<Int, Never>()
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

extension ModelThreadTests {
    /// Models made for code on another thread that waits meanwhile (as the store makes the
    /// models of a fetch) belong to that code from the start; nesting restores the outer owner,
    /// and afterwards models belong to whoever makes them again.
    @Test func modelsMadeForAnotherThreadsCodeBelongToItFromTheStart() {
        let word = Mutex<UInt>(0)
        let read = Thread { word.withLock { $0 = ModelRegistrar.currentOwner } }
        read.start()
        while word.withLock({ $0 }) == 0 { Thread.sleep(forTimeInterval: 0.001) }
        let other = word.withLock { $0 }
        let mine = ModelRegistrar.currentOwner
        #expect(other != mine)
        let (first, inner, last) = ModelRegistrar.making(ownedBy: other) {
            (HandInvoice(), ModelRegistrar.making(ownedBy: mine) { HandInvoice() }, HandInvoice())
        }
        let after = HandInvoice()
        let owned = [first, inner, last, after].map { ($0._$registrar.isOwned(by: other), $0._$registrar.isOwned(by: mine)) }
        #expect(owned.map(\.0) == [true, false, true, false], "owned by the other thread")
        #expect(owned.map(\.1) == [false, true, false, true], "owned by this thread")
    }
}

/// Hands a model to another thread on purpose (the test does not touch it meanwhile).
final class _Handoff: @unchecked Sendable {
    // Safe: the creating thread stops using the model before the receiving thread starts.
    let model: HandInvoice
    init(_ model: HandInvoice) { self.model = model }
}
