// W5: writing a property of a model.
//
// - W5a: set a tracked property that has 1 observer of its key path; ns per set.
// - W5b: the same with 10 observers.
// - W5c: set a tracked property that nobody observes.
// - W5d: observe a computed property over 3 tracked inputs, change one input; ns per update.
//
// Tether is measured twice: with the Observation bridge on (`ObservationBridge.isEnabled = true`,
// the default: every write of a tracked property is also reported to Swift's Observation
// registrar) and off (set inside the benchmark closure, restored after).
//
// Peers in the same run: hand-written `didSet` closures (HandWrittenModels.swift), OpenCombine
// (`CurrentValueSubject` + `sink`, `@Published` + `$x.sink`) and Swift's Observation
// (`@Observable` + `withObservationTracking`, registered again in each `onChange`).
//
// Every loop writes a new value each time (`i + 1`, never the current value), so every version
// notifies on every write. Objects are made and wired by `@inline(never)` functions.
import Benchmark
import Observation
import OpenCombine
import Synchronization
import Tether

// MARK: Tether models

@Model
final class TetherCounter {
    var x = 0
}

@Model
final class TetherTotals {
    var a = 0
    var b = 0
    var c = 0
    var total: Int { a + b + c }
}

@inline(never)
func makeTetherCounter() -> TetherCounter {
    TetherCounter()
}

@inline(never)
func makeTetherTotals() -> TetherTotals {
    TetherTotals()
}

/// `observers` subscriptions to `observe(counter, \.x)`.
@inline(never)
func tetherObserve(_ counter: TetherCounter, observers: Int, sink: @escaping @Sendable (Int) -> Void) -> [any Disposable] {
    (0..<observers).map { _ in observe(counter, \.x).subscribe(next: sink) }
}

@inline(never)
func tetherObserveTotal(_ totals: TetherTotals, sink: @escaping @Sendable (Int) -> Void) -> any Disposable {
    observe(totals, \.total).subscribe(next: sink)
}

/// W5c: the tracked write behind a call the optimizer cannot inline, like `plainSet`.
@inline(never)
func tetherSet(_ counter: TetherCounter, _ value: Int) {
    counter.x = value
}

/// Runs `body` with the Observation bridge on or off, then restores the previous setting.
func withObservationBridge<T>(_ enabled: Bool, _ body: () throws -> T) rethrows -> T {
    let previous = ObservationBridge.isEnabled
    ObservationBridge.isEnabled = enabled
    defer { ObservationBridge.isEnabled = previous }
    return try body()
}

/// The benchmark name's suffix for Tether with the bridge on or off.
func tetherLabel(bridge: Bool) -> String {
    bridge ? "Tether (bridge on)" : "Tether (bridge off)"
}

// MARK: OpenCombine

/// `@Published` in a plain class (not an `ObservableObject`: no `objectWillChange` to send).
final class PublishedCounter {
    @Published var x = 0

    init() {}
}

@inline(never)
func openCombineValueSubject(observers: Int, sink: @escaping (Int) -> Void) -> (CurrentValueSubject<Int, Never>, [AnyCancellable]) {
    let subject = CurrentValueSubject<Int, Never>(0)
    let cancellables = (0..<observers).map { _ in subject.sink(receiveValue: sink) }
    return (subject, cancellables)
}

@inline(never)
func openCombinePublished(observers: Int, sink: @escaping (Int) -> Void) -> (PublishedCounter, [AnyCancellable]) {
    let counter = PublishedCounter()
    let cancellables = (0..<observers).map { _ in counter.$x.sink(receiveValue: sink) }
    return (counter, cancellables)
}

// MARK: Swift Observation

@Observable
final class ObservationCounter {
    var x = 0
}

@Observable
final class ObservationTotals {
    var a = 0
    var b = 0
    var c = 0
    var total: Int { a + b + c }
}

/// What an observation loop needs in its `onChange` (which must be `@Sendable`).
///
/// Why `@unchecked Sendable`: the benchmarks are single-threaded, and `onChange` runs
/// synchronously on the thread that writes the property.
struct ObservationLoop<Object: AnyObject>: @unchecked Sendable {
    weak var object: Object?
    let sink: (Int) -> Void
}

/// Observes `counter.x` with `withObservationTracking`, registering again in each `onChange`
/// (an observation fires once). `onChange` runs in `willSet`, before the write: the value it
/// can read (by registering again) is the old one, which is what the sink receives.
@inline(never)
@discardableResult
func observationTrack(_ loop: ObservationLoop<ObservationCounter>) -> Int {
    guard let counter = loop.object else { return 0 }
    return withObservationTracking {
        counter.x
    } onChange: {
        loop.sink(observationTrack(loop))
    }
}

/// The same for the computed `total` (Observation records the three inputs the getter reads).
@inline(never)
@discardableResult
func observationTrackTotal(_ loop: ObservationLoop<ObservationTotals>) -> Int {
    guard let totals = loop.object else { return 0 }
    return withObservationTracking {
        totals.total
    } onChange: {
        loop.sink(observationTrackTotal(loop))
    }
}

@inline(never)
func makeObservationCounter(sink: @escaping (Int) -> Void) -> ObservationCounter {
    let counter = ObservationCounter()
    observationTrack(ObservationLoop(object: counter, sink: sink))
    return counter
}

@inline(never)
func makeObservationTotals(sink: @escaping (Int) -> Void) -> ObservationTotals {
    let totals = ObservationTotals()
    observationTrackTotal(ObservationLoop(object: totals, sink: sink))
    return totals
}

// MARK: Benchmarks

func registerW5() {
    verifyW5()

    // W5a-W5c take a few ns per set: a sample is 1,000,000 sets, so that reading the clock
    // twice per sample weighs nothing.
    let perSet = Benchmark.Configuration(scalingFactor: .mega, maxDuration: .seconds(3))

    // W5a: 1 observer.
    Benchmark("W5a set, 1 observer — Hand", configuration: perSet) { benchmark in
        let counter = makeHandCounter(sink: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { counter.x = i &+ 1 }
        benchmark.stopMeasurement()
        blackHole(counter.x)
    }
    for bridge in [true, false] {
        Benchmark("W5a set, 1 observer — \(tetherLabel(bridge: bridge))", configuration: perSet) { benchmark in
            withObservationBridge(bridge) {
                let counter = makeTetherCounter()
                let subscriptions = tetherObserve(counter, observers: 1, sink: { blackHole($0) })
                benchmark.startMeasurement()
                for i in benchmark.scaledIterations { counter.x = i &+ 1 }
                benchmark.stopMeasurement()
                subscriptions.forEach { $0.dispose() }
            }
        }
    }
    Benchmark("W5a set, 1 observer — OpenCombine CurrentValueSubject", configuration: perSet) { benchmark in
        let (subject, cancellables) = openCombineValueSubject(observers: 1, sink: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { subject.send(i &+ 1) }
        benchmark.stopMeasurement()
        cancellables.forEach { $0.cancel() }
    }
    Benchmark("W5a set, 1 observer — OpenCombine @Published", configuration: perSet) { benchmark in
        let (counter, cancellables) = openCombinePublished(observers: 1, sink: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { counter.x = i &+ 1 }
        benchmark.stopMeasurement()
        cancellables.forEach { $0.cancel() }
    }
    Benchmark("W5a set, 1 observer — Observation", configuration: perSet) { benchmark in
        let counter = makeObservationCounter(sink: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { counter.x = i &+ 1 }
        benchmark.stopMeasurement()
        blackHole(counter.x)
    }

    // W5b: 10 observers.
    Benchmark("W5b set, 10 observers — Hand", configuration: perSet) { benchmark in
        let counter = makeHandCounterMany(observers: 10, sink: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { counter.x = i &+ 1 }
        benchmark.stopMeasurement()
        blackHole(counter.x)
    }
    for bridge in [true, false] {
        Benchmark("W5b set, 10 observers — \(tetherLabel(bridge: bridge))", configuration: perSet) { benchmark in
            withObservationBridge(bridge) {
                let counter = makeTetherCounter()
                let subscriptions = tetherObserve(counter, observers: 10, sink: { blackHole($0) })
                benchmark.startMeasurement()
                for i in benchmark.scaledIterations { counter.x = i &+ 1 }
                benchmark.stopMeasurement()
                subscriptions.forEach { $0.dispose() }
            }
        }
    }
    Benchmark("W5b set, 10 observers — OpenCombine CurrentValueSubject", configuration: perSet) { benchmark in
        let (subject, cancellables) = openCombineValueSubject(observers: 10, sink: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { subject.send(i &+ 1) }
        benchmark.stopMeasurement()
        cancellables.forEach { $0.cancel() }
    }
    Benchmark("W5b set, 10 observers — OpenCombine @Published", configuration: perSet) { benchmark in
        let (counter, cancellables) = openCombinePublished(observers: 10, sink: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { counter.x = i &+ 1 }
        benchmark.stopMeasurement()
        cancellables.forEach { $0.cancel() }
    }

    // W5c: nobody observing. Both the plain and the tracked write go through an
    // `@inline(never)` setter (plainSet, tetherSet): without it the optimizer keeps only the
    // last store of the plain loop. The "inlined" rows write in the loop itself, as code using
    // a model does.
    Benchmark("W5c set, nobody observing — Hand", configuration: perSet) { benchmark in
        let counter = makePlainCounter()
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { plainSet(counter, i &+ 1) }
        benchmark.stopMeasurement()
        blackHole(counter.x)
    }
    for bridge in [true, false] {
        Benchmark("W5c set, nobody observing — \(tetherLabel(bridge: bridge))", configuration: perSet) { benchmark in
            withObservationBridge(bridge) {
                let counter = makeTetherCounter()
                benchmark.startMeasurement()
                for i in benchmark.scaledIterations { tetherSet(counter, i &+ 1) }
                benchmark.stopMeasurement()
                blackHole(counter.x)
            }
        }
        Benchmark("W5c set, nobody observing, inlined — \(tetherLabel(bridge: bridge))", configuration: perSet) { benchmark in
            withObservationBridge(bridge) {
                let counter = makeTetherCounter()
                benchmark.startMeasurement()
                for i in benchmark.scaledIterations { counter.x = i &+ 1 }
                benchmark.stopMeasurement()
                blackHole(counter.x)
            }
        }
    }

    // W5c, for reference: with the bridge on, a property that has been read (outside Tether's
    // own reads) may be observed by Observation, so its writes go through Observation's
    // registrar (Observation cannot tell Tether when nobody observes any more).
    Benchmark("W5c set, nobody observing, read once — \(tetherLabel(bridge: true))", configuration: perSet) { benchmark in
        withObservationBridge(true) {
            let counter = makeTetherCounter()
            blackHole(counter.x)
            benchmark.startMeasurement()
            for i in benchmark.scaledIterations { tetherSet(counter, i &+ 1) }
            benchmark.stopMeasurement()
            blackHole(counter.x)
        }
    }

    // W5d: a computed total over three inputs; one input changes per update, in turn. A sample
    // is 1,000 updates (Observation's row takes about 2.5 µs per update); each row is measured
    // for 3 seconds, as W5a-W5c are.
    let perUpdate = Benchmark.Configuration(scalingFactor: .kilo, maxDuration: .seconds(3))
    Benchmark("W5d computed total per update — Hand", configuration: perUpdate) { benchmark in
        let totals = makeHandTotals(sink: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            switch i % 3 {
            case 0: totals.a = i &+ 1
            case 1: totals.b = i &+ 1
            default: totals.c = i &+ 1
            }
        }
        benchmark.stopMeasurement()
        blackHole(totals.total)
    }
    for bridge in [true, false] {
        Benchmark("W5d computed total per update — \(tetherLabel(bridge: bridge))", configuration: perUpdate) { benchmark in
            withObservationBridge(bridge) {
                let totals = makeTetherTotals()
                let subscription = tetherObserveTotal(totals, sink: { blackHole($0) })
                benchmark.startMeasurement()
                for i in benchmark.scaledIterations {
                    switch i % 3 {
                    case 0: totals.a = i &+ 1
                    case 1: totals.b = i &+ 1
                    default: totals.c = i &+ 1
                    }
                }
                benchmark.stopMeasurement()
                subscription.dispose()
            }
        }
    }
    Benchmark("W5d computed total per update — Observation", configuration: perUpdate) { benchmark in
        let totals = makeObservationTotals(sink: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            switch i % 3 {
            case 0: totals.a = i &+ 1
            case 1: totals.b = i &+ 1
            default: totals.c = i &+ 1
            }
        }
        benchmark.stopMeasurement()
        blackHole(totals.total)
    }
}

// MARK: Checking that every version does the work

/// Collects what a sink received (for `verifyW5`/`verifyW8`).
final class Received: Sendable {
    private let state = Mutex<[Int]>([])
    var values: [Int] { state.withLock { $0 } }
    var sink: @Sendable (Int) -> Void { { value in self.state.withLock { $0.append(value) } } }
}

/// Checks, before anything is measured, that each version of W5 delivers what it should for
/// three writes; a version that silently did nothing would make its figures meaningless.
func verifyW5() {
    func check(_ what: String, _ received: Received, _ expected: [Int]) {
        precondition(received.values == expected, "W5 check failed for \(what): \(received.values), expected \(expected)")
    }
    let writes = [1, 2, 3]

    var received = Received()
    let hand = makeHandCounter(sink: received.sink)
    for value in writes { hand.x = value }
    check("hand, 1 observer", received, [1, 2, 3])

    received = Received()
    let handMany = makeHandCounterMany(observers: 10, sink: received.sink)
    for value in writes { handMany.x = value }
    check("hand, 10 observers", received, writes.flatMap { Array(repeating: $0, count: 10) })

    for bridge in [true, false] {
        withObservationBridge(bridge) {
            for observers in [1, 10] {
                let received = Received()
                let counter = makeTetherCounter()
                let subscriptions = tetherObserve(counter, observers: observers, sink: received.sink)
                for value in writes { counter.x = value }
                subscriptions.forEach { $0.dispose() }
                counter.x = 4   // not delivered
                check("Tether, \(observers) observers, bridge \(bridge)", received,
                      ([0] + writes).flatMap { Array(repeating: $0, count: observers) })
            }
            let counter = makeTetherCounter()
            for value in writes { tetherSet(counter, value) }
            precondition(counter.x == 3, "W5 check failed for tetherSet")
            // Observation sees writes of a property read with the bridge on (the "read once" row).
            let told = Received()
            withObservationTracking {
                _ = counter.x
            } onChange: {
                told.sink(1)
            }
            tetherSet(counter, 4)
            precondition(told.values == (bridge ? [1] : []), "W5 check failed for the Observation bridge, bridge \(bridge)")

            let received = Received()
            let totals = makeTetherTotals()
            let subscription = tetherObserveTotal(totals, sink: received.sink)
            totals.a = 1
            totals.b = 2
            totals.c = 3
            totals.a = 1   // equal: no change, no total
            subscription.dispose()
            check("Tether, computed total, bridge \(bridge)", received, [0, 1, 3, 6])
        }
    }

    received = Received()
    let (subject, cancellables) = openCombineValueSubject(observers: 10, sink: received.sink)
    for value in writes { subject.send(value) }
    cancellables.forEach { $0.cancel() }
    check("OpenCombine CurrentValueSubject", received, ([0] + writes).flatMap { Array(repeating: $0, count: 10) })

    received = Received()
    let (published, publishedCancellables) = openCombinePublished(observers: 1, sink: received.sink)
    for value in writes { published.x = value }
    publishedCancellables.forEach { $0.cancel() }
    check("OpenCombine @Published", received, [0] + writes)

    received = Received()
    let observed = makeObservationCounter(sink: received.sink)
    for value in writes { observed.x = value }
    check("Observation (sees the old value, in willSet)", received, [0, 1, 2])

    received = Received()
    let handTotals = makeHandTotals(sink: received.sink)
    handTotals.a = 1
    handTotals.b = 2
    handTotals.c = 3
    handTotals.a = 1
    check("hand, computed total", received, [1, 3, 6])

    received = Received()
    let observedTotals = makeObservationTotals(sink: received.sink)
    observedTotals.a = 1
    observedTotals.b = 2
    observedTotals.c = 3
    check("Observation, computed total (old totals, in willSet)", received, [0, 1, 3])
}
