// W1: a hot source -> map(x*2) -> filter (keeps half) -> scan(+) -> subscriber.
// Reported per event sent into the source (scaling factor 1,000 events per sample).
// The Tether version needs `scan` and lives in TetherOperators.swift.
import Benchmark
import OpenCombine

func registerW1() {
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
