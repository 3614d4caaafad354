// W9 (issue 18): contention. Two threads send into one source -> map(x*2) -> subscriber, at
// the same time, each half of the events; beside the same pipeline fed by one thread. Reported
// per event sent (1,000,000 events per sample). The subscriber is the same thread-safe sink in
// every version; a source delivers one event at a time (the contract of a Subject: events are
// never delivered concurrently), so under contention the senders wait for each other.
//
// Hand: a callback list behind the toolchain's `Mutex`, held while it delivers (what a careful
// hand-written source does to keep events serialized). OpenCombine: `PassthroughSubject`.
import Benchmark
import Dispatch
import OpenCombine
import Synchronization
import TetherSignals

/// A hand-written source of ints that two threads may send into: the callbacks run under its
/// lock, one event at a time.
final class LockedCallbacks: Sendable {
    private let observers = Mutex<[@Sendable (Int) -> Void]>([])

    func add(_ callback: @escaping @Sendable (Int) -> Void) {
        observers.withLock { $0.append(callback) }
    }

    @inline(never)
    func send(_ value: Int) {
        observers.withLock { observers in
            for observer in observers { observer(value) }
        }
    }
}

/// Sends `events` values with `send`, from `threads` threads at once (each its share).
@inline(__always)
func sendConcurrently(threads: Int, events: Int, _ send: @Sendable (Int) -> Void) {
    if threads == 1 {
        for value in 0..<events { send(value) }
        return
    }
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
        for value in stride(from: thread, to: events, by: threads) { send(value) }
    }
}

func registerW9() {
    let configuration = Benchmark.Configuration(scalingFactor: .mega, maxDuration: .seconds(5), maxIterations: 20)
    for threads in [1, 2] {
        let label = threads == 1 ? "1 thread" : "2 threads"
        Benchmark("W9 \(label) send -> map -> subscriber per event — Tether", configuration: configuration) { benchmark in
            let subject = TetherSignals.Subject<Int, Never>()
            let subscription = subject.signal.map { $0 * 2 }.subscribe(next: { blackHole($0) })
            let events = benchmark.scaledIterations.count
            benchmark.startMeasurement()
            sendConcurrently(threads: threads, events: events) { subject.sendNext($0) }
            benchmark.stopMeasurement()
            subscription.dispose()
        }

        Benchmark("W9 \(label) send -> map -> subscriber per event — OpenCombine", configuration: configuration) { benchmark in
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.map { $0 * 2 }.sink { blackHole($0) }
            let events = benchmark.scaledIterations.count
            let box = UncheckedSubject(subject)
            benchmark.startMeasurement()
            sendConcurrently(threads: threads, events: events) { box.subject.send($0) }
            benchmark.stopMeasurement()
            cancellable.cancel()
        }

        Benchmark("W9 \(label) send -> map -> subscriber per event — Hand", configuration: configuration) { benchmark in
            let source = LockedCallbacks()
            source.add { value in blackHole(value * 2) }
            let events = benchmark.scaledIterations.count
            benchmark.startMeasurement()
            sendConcurrently(threads: threads, events: events) { source.send($0) }
            benchmark.stopMeasurement()
        }
    }
}

/// OpenCombine's subject, which is not `Sendable` but locks inside: sent into from two threads.
/// Why `@unchecked Sendable` is safe: `PassthroughSubject.send` takes the subject's lock.
struct UncheckedSubject: @unchecked Sendable {
    let subject: PassthroughSubject<Int, Never>
    init(_ subject: PassthroughSubject<Int, Never>) { self.subject = subject }
}
