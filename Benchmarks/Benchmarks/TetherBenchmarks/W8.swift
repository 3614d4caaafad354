// W8: a hot subject bound to a model property (ReactiveCocoa's `RAC(model, x) = signal`); ns per
// value sent into the subject. Nobody observes the property.
//
// - Tether: `bind(subject.signal, to: model, \.x)` on a `@Model` class, with the Observation
//   bridge on (the default) and off.
// - Hand-written: the source's callback sets a plain stored property, holding the object
//   weakly (`handBind`, HandWrittenModels.swift).
// - OpenCombine: `subject.assign(to: \.x, on: object)` on a plain class (`AssignTarget`).
import Benchmark
import OpenCombine
import Tether

@inline(never)
func tetherBind(_ subject: TetherSignals.Subject<Int, Never>, to counter: TetherCounter) -> any Disposable {
    bind(subject.signal, to: counter, \.x)
}

@inline(never)
func openCombineAssign(_ subject: PassthroughSubject<Int, Never>, to counter: AssignTarget) -> AnyCancellable {
    subject.assign(to: \.x, on: counter)
}

func registerW8() {
    verifyW8()
    // Measured for 3 seconds per row, as W5 is.
    let config = Benchmark.Configuration(scalingFactor: .kilo, maxDuration: .seconds(3))

    Benchmark("W8 bind per value — Hand", configuration: config) { benchmark in
        let source = Callbacks()
        let counter = makePlainCounter()
        let token = handBind(source, to: counter)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { source.send(i &+ 1) }
        benchmark.stopMeasurement()
        source.remove(token)
        blackHole(counter.x)
    }
    for bridge in [true, false] {
        Benchmark("W8 bind per value — \(tetherLabel(bridge: bridge))", configuration: config) { benchmark in
            withObservationBridge(bridge) {
                let subject = TetherSignals.Subject<Int, Never>()
                let counter = makeTetherCounter()
                let binding = tetherBind(subject, to: counter)
                benchmark.startMeasurement()
                for i in benchmark.scaledIterations { subject.sendNext(i &+ 1) }
                benchmark.stopMeasurement()
                binding.dispose()
                blackHole(counter.x)
            }
        }
    }
    Benchmark("W8 bind per value — OpenCombine", configuration: config) { benchmark in
        let subject = PassthroughSubject<Int, Never>()
        let counter = AssignTarget()
        let cancellable = openCombineAssign(subject, to: counter)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { subject.send(i &+ 1) }
        benchmark.stopMeasurement()
        cancellable.cancel()
        blackHole(counter.x)
    }
}

/// Checks, before anything is measured, that each version of W8 assigns the values.
func verifyW8() {
    let source = Callbacks()
    let plain = makePlainCounter()
    let token = handBind(source, to: plain)
    source.send(7)
    precondition(plain.x == 7, "W8 check failed for hand")
    source.remove(token)

    for bridge in [true, false] {
        withObservationBridge(bridge) {
            let subject = TetherSignals.Subject<Int, Never>()
            let counter = makeTetherCounter()
            let received = Received()
            let observation = tetherObserve(counter, observers: 1, sink: received.sink)
            let binding = tetherBind(subject, to: counter)
            subject.sendNext(7)
            subject.sendNext(8)
            binding.dispose()
            subject.sendNext(9)   // not assigned
            observation.forEach { $0.dispose() }
            precondition(counter.x == 8 && received.values == [0, 7, 8], "W8 check failed for Tether, bridge \(bridge)")
        }
    }

    let subject = PassthroughSubject<Int, Never>()
    let target = AssignTarget()
    let cancellable = openCombineAssign(subject, to: target)
    subject.send(7)
    precondition(target.x == 7, "W8 check failed for OpenCombine")
    cancellable.cancel()
}
