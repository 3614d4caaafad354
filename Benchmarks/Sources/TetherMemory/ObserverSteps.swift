// M3 step by step (`swift run -c release TetherMemory m3-steps`): the bytes that each step of
// M3 adds to a model, averaged over 100,000 models, measured like M3 (`mallinfo2`): the model,
// then each of its four subscriptions. The first subscription also makes the registrar's side
// object and the model's observer table; the table grows with the others.
import Tether

/// Bytes per model added by each step: making the model, then subscribing to each of its four
/// properties.
func observerSteps(count: Int) -> [(step: String, bytes: Double)] {
    let received = Received()
    var models: [MemoryInvoice] = []
    var subscriptions: [any Disposable] = []
    models.reserveCapacity(count)
    subscriptions.reserveCapacity(4 * count)
    var steps: [(String, Double)] = []
    func step(_ name: String, _ body: () -> Void) {
        let before = liveBytes()
        body()
        steps.append((name, Double(liveBytes() - before) / Double(count)))
    }
    step("the model") { for _ in 0..<count { models.append(MemoryInvoice()) } }
    step("1st subscription (with the side object and the observer table)") {
        for model in models { subscriptions.append(observe(model, \.customer).subscribe(next: { _ in received.add() })) }
    }
    step("2nd subscription") {
        for model in models { subscriptions.append(observe(model, \.quantity).subscribe(next: { _ in received.add() })) }
    }
    step("3rd subscription") {
        for model in models { subscriptions.append(observe(model, \.unitPrice).subscribe(next: { _ in received.add() })) }
    }
    step("4th subscription") {
        for model in models { subscriptions.append(observe(model, \.discount).subscribe(next: { _ in received.add() })) }
    }
    models[0].quantity = 1   // the observers are live
    precondition(received.count == 4 * count + 1, "M3 steps: every observer subscribed")
    for subscription in subscriptions { subscription.dispose() }
    return steps
}
