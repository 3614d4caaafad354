import Foundation
import Synchronization
import TetherTestSupport
import Testing
import Tether

@Model
final class Stock {
    var count = 0
    var reserved = 0
    var available: Int { count - reserved }
}

/// An actor whose executor resumes it on the other of two threads after every suspension.
actor Warehouse {
    let executor = AlternatingExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Makes a model, then observes it, binds it and writes it, each after a suspension (so on
    /// the other thread from the one before). Returns what the observers saw and the threads
    /// the actor ran on.
    func run() async -> (available: [Int], counts: [Int], threads: Set<UInt>) {
        var threads: Set<UInt> = [currentThreadID()]
        let stock = Stock()
        await Task.yield()
        threads.insert(currentThreadID())
        let available = Mutex<[Int]>([])
        let counts = Mutex<[Int]>([])
        let observation = observe(stock, \.available).subscribe(next: { value in available.withLock { $0.append(value) } })
        await Task.yield()
        threads.insert(currentThreadID())
        let source = Subject<Int, Never>()
        let binding = bind(source.signal, to: stock, \.count)
        let countObservation = observe(stock, \.count).subscribe(next: { value in counts.withLock { $0.append(value) } })
        for value in 1...4 {
            await Task.yield()
            threads.insert(currentThreadID())
            source.sendNext(value * 10)   // the binding assigns on this thread
            await Task.yield()
            stock.reserved = value          // a plain write, with observers
        }
        observation.dispose()
        countObservation.dispose()
        binding.dispose()
        return (available.withLock { $0 }, counts.withLock { $0 }, threads)
    }
}

@Suite("Models that an actor owns")
struct ActorOwnershipTests {
    /// A model made in an actor is observed, bound and written from that actor after each
    /// suspension, on whichever thread its executor resumes it: every change reaches the
    /// observers and nothing stops the process.
    @Test func aModelIsUsableAcrossSuspensionsOfItsActor() async {
        let warehouse = Warehouse()
        let (available, counts, threads) = await warehouse.run()
        #expect(threads == warehouse.executor.threadIDs, "the actor ran on both threads")
        #expect(available == [0, 10, 9, 19, 18, 28, 27, 37, 36])
        #expect(counts == [0, 10, 20, 30, 40])
    }
}

/// Writes `stock` (which has an observer) from a thread that does not own it.
private func writeFromAnotherThread(_ stock: Stock) {
    let handoff = UncheckedBox(stock)
    let thread = Thread { handoff.value.count = 1 }
    thread.start()
    while !thread.isFinished { usleep(1_000) }
}

/// Carries a value to another thread on purpose, to break the rules in a test that expects
/// the process to stop. Why `@unchecked Sendable` is acceptable here: breaking the rules is
/// the test.
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension ActorOwnershipTests {
    /// What the compiler cannot check is checked at run time: a write of an observed model
    /// off its owner stops the process, with a message that says where the model belongs.
    @Test func aWriteOffTheOwnerStopsTheProcess() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let stock = Stock()
            let observation = observe(stock, \.count).subscribe(next: { _ in })
            writeFromAnotherThread(stock)
            observation.dispose()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("a write of Stock.count off the model's owner"), "the property by its name")
        #expect(message.contains("the model belongs to the thread that made it"))
    }
}

extension ActorOwnershipTests {
    /// The main thread, the main actor and the main queue are one place, as Swift treats them.
    /// After `dispatchMain()` (which the test process's main thread has called) main-queue
    /// blocks run on worker threads: a model made in a `DispatchQueue.main.sync` block sent
    /// from another thread is observed and written from later main-queue blocks and from
    /// main-actor code, wherever those run, and every change reaches its observer.
    @Test func aModelMadeOnTheMainQueueIsUsedFromMainQueueBlocksAndTheMainActor() async {
        await #expect(processExitsWith: .success) {
            let seen = SeenValues()
            let made = await withCheckedContinuation { (continuation: CheckedContinuation<UncheckedBox<(Stock, any Disposable)>, Never>) in
                Thread {
                    let made = DispatchQueue.main.sync {
                        let stock = Stock()
                        let observation = observe(stock, \.count).subscribe(next: { value in seen.values.withLock { $0.append(value) } })
                        return UncheckedBox((stock, observation))
                    }
                    for value in 1...20 { DispatchQueue.main.sync { made.value.0.count = value } }
                    DispatchQueue.main.async {
                        made.value.0.count = 21
                        continuation.resume(returning: made)
                    }
                }.start()
            }
            await MainActor.run { made.value.0.count = 22 }
            let stock = made.value.0
            Task { @MainActor in stock.count = 23 }
            await MainActor.run { made.value.1.dispose() }
            #expect(seen.values.withLock { $0 } == Array(0...23))
        }
    }
}

/// Values an observer saw, shared with the test.
final class SeenValues: Sendable {
    let values = Mutex<[Int]>([])
}
