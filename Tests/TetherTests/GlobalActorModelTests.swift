import Testing
import Tether

@globalActor
actor LedgerActor {
    static let shared = LedgerActor()
}

/// A model isolated to a global actor of the app's own.
@LedgerActor @Model
final class Ledger {
    var entries: [Int] = []
    var balance: Int { entries.reduce(0, +) }
}

@LedgerActor
func recordBalances(_ amounts: [Int]) async -> [Int] {
    let ledger = Ledger()
    var balances: [Int] = []
    let subscription = observe(ledger, \.balance).sink { balances.append($0) }
    for amount in amounts {
        ledger.entries.append(amount)
        await Task.yield()   // the actor may resume on another thread: the model still belongs to it
    }
    subscription.dispose()
    return balances
}

@Suite("A model isolated to a global actor of the app's own")
struct GlobalActorModelTests {
    @Test func observesOnItsActorAcrossSuspensions() async {
        #expect(await recordBalances([5, -2, 10]) == [0, 5, 3, 13])
    }
}
