// W1: a hot source -> map(x*2) -> filter (keeps half) -> scan(+) -> subscriber.
// Reported per event sent into the source (scaling factor 1,000 events per sample).
// The Tether version of the pipeline needs `scan` and lives in TetherOperators.swift.
//
// A reference row, "W1 subject only", sends the same events straight to a subscriber (no
// operators), to tell the cost of the source from the cost of the operators.
import Benchmark
import OpenCombine
import TetherSignals

func registerW1() {
    Benchmark("W1 subject only per event — Tether", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let subject = TetherSignals.Subject<Int, Never>()
        let subscription = subject.signal.subscribe(next: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { subject.sendNext(i) }
        benchmark.stopMeasurement()
        subscription.dispose()
    }

    Benchmark("W1 subject only per event — OpenCombine", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = subject.sink { blackHole($0) }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { subject.send(i) }
        benchmark.stopMeasurement()
        cancellable.cancel()
    }

    Benchmark("W1 subject only per event — Hand", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let source = Callbacks()
        let token = handSubscribe(source, sink: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { source.send(i) }
        benchmark.stopMeasurement()
        source.remove(token)
    }

    Benchmark("W1 map-filter-scan per event — OpenCombine", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = subject
            .map { $0 * 2 }
            .filter { $0 % 4 == 0 }
            .scan(0, +)
            .sink { blackHole($0) }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { subject.send(i) }
        benchmark.stopMeasurement()
        cancellable.cancel()
    }

    Benchmark("W1 map-filter-scan per event — Hand", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let source = Callbacks()
        let token = handW1(source: source, sink: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { source.send(i) }
        benchmark.stopMeasurement()
        source.remove(token)
    }
}
