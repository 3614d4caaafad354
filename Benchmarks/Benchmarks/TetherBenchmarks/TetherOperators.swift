// The Tether versions of W1, W3 and W4 (they use `scan`, `Signal.combineLatest(_:_:_:reduce:)`
// and `flatMap(.merge)`). Named and measured exactly like the OpenCombine and hand-written
// versions in W1.swift, W3.swift and W4.swift.
import Benchmark
import TetherSignals

func registerTetherOperatorBenchmarks() {
    Benchmark("W1 map-filter-scan per event — Tether", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let subject = Subject<Int, Never>()
        let subscription = subject.signal
            .map { $0 * 2 }
            .filter { $0 % 4 == 0 }
            .scan(0, +)
            .subscribe(next: { blackHole($0) })
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { subject.sendNext(i) }
        benchmark.stopMeasurement()
        subscription.dispose()
    }

    Benchmark("W3 combineLatest3 per update — Tether", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let a = Subject<Int, Never>()
        let b = Subject<Int, Never>()
        let c = Subject<Int, Never>()
        let subscription = Signal.combineLatest(a.signal, b.signal, c.signal, reduce: { $0 + $1 + $2 })
            .subscribe(next: { blackHole($0) })
        a.sendNext(0); b.sendNext(0); c.sendNext(0)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            switch i % 3 {
            case 0: a.sendNext(i)
            case 1: b.sendNext(i)
            default: c.sendNext(i)
            }
        }
        benchmark.stopMeasurement()
        subscription.dispose()
    }

    let w4Config = Benchmark.Configuration(
        timeUnits: .microseconds, scalingFactor: .mega, maxDuration: .seconds(3), maxIterations: 25
    )
    Benchmark("W4 flatMap(merge) per inner value — Tether", configuration: w4Config) { benchmark in
        let outer = Subject<Signal<Int, Never>, Never>()
        let inners = (0..<w4Inners).map { _ in Subject<Int, Never>() }
        let subscription = outer.signal.flatMap(.merge) { $0 }.subscribe(next: { blackHole($0) })
        benchmark.startMeasurement()
        for inner in inners { outer.sendNext(inner.signal) }
        for value in 0..<w4Values {
            for inner in inners { inner.sendNext(value) }
        }
        benchmark.stopMeasurement()
        subscription.dispose()
    }
}
