// W4: flatMap(.merge) over 1,000 inner hot sources x 1,000 values each; per inner value.
// Measured: handing the 1,000 inner sources to the outer one, then sending 1,000 rounds of one
// value into each inner source (1,000,000 values, scaling factor 1M). Creating the sources and
// subscribing the pipeline, and tearing down, are outside the measurement.
// The Tether version needs `flatMap(.merge)`: TetherOperators.swift.
import Benchmark
import OpenCombine

let w4Inners = 1_000
let w4Values = 1_000

func registerW4() {
    let config = Benchmark.Configuration(
        timeUnits: .microseconds, scalingFactor: .mega, maxDuration: .seconds(3), maxIterations: 25
    )

    Benchmark("W4 flatMap(merge) per inner value — OpenCombine", configuration: config) { benchmark in
        let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let inners = (0..<w4Inners).map { _ in PassthroughSubject<Int, Never>() }
        let cancellable = outer.flatMap { $0 }.sink { blackHole($0) }
        benchmark.startMeasurement()
        for inner in inners { outer.send(inner) }
        for value in 0..<w4Values {
            for inner in inners { inner.send(value) }
        }
        benchmark.stopMeasurement()
        cancellable.cancel()
    }

    Benchmark("W4 flatMap(merge) per inner value — Hand", configuration: config) { benchmark in
        let outer = SourceCallbacks()
        let inners = (0..<w4Inners).map { _ in Callbacks() }
        let cancel = handMerge(outer: outer, sink: { blackHole($0) })
        benchmark.startMeasurement()
        for inner in inners { outer.send(inner) }
        for value in 0..<w4Values {
            for inner in inners { inner.send(value) }
        }
        benchmark.stopMeasurement()
        cancel()
    }
}
