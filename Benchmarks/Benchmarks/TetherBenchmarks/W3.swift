// W3: combineLatest of three sources, reduced to their sum; per update (one update = one value
// sent into one of the three sources, in turn, after each has a first value).
// The Tether version needs `Signal.combineLatest(_:_:_:reduce:)`: TetherOperators.swift.
//
// OpenCombine 0.14.0 has neither CombineLatest nor Merge. Its version here is what a user of
// OpenCombine 0.14 writes instead: merge the three sources (flatMap over a sequence of the
// three publishers), keep the latest of each with scan, and emit the sum once all three have a
// value (compactMap). Read its W3 figure with that in mind.
import Benchmark
import OpenCombine

enum W3Tagged {
    case a(Int), b(Int), c(Int)
}

/// combineLatest(a, b, c).map(sum), built from what OpenCombine 0.14 has.
func openCombineLatest3Sum(
    _ a: PassthroughSubject<Int, Never>, _ b: PassthroughSubject<Int, Never>, _ c: PassthroughSubject<Int, Never>
) -> AnyPublisher<Int, Never> {
    let sources: [AnyPublisher<W3Tagged, Never>] = [
        a.map(W3Tagged.a).eraseToAnyPublisher(),
        b.map(W3Tagged.b).eraseToAnyPublisher(),
        c.map(W3Tagged.c).eraseToAnyPublisher(),
    ]
    return Publishers.Sequence<[AnyPublisher<W3Tagged, Never>], Never>(sequence: sources)
        .flatMap { $0 }
        .scan((Int?.none, Int?.none, Int?.none)) { latest, tagged in
            switch tagged {
            case .a(let value): return (value, latest.1, latest.2)
            case .b(let value): return (latest.0, value, latest.2)
            case .c(let value): return (latest.0, latest.1, value)
            }
        }
        .compactMap { latest -> Int? in
            guard let x = latest.0, let y = latest.1, let z = latest.2 else { return nil }
            return x + y + z
        }
        .eraseToAnyPublisher()
}

func registerW3() {
    Benchmark("W3 combineLatest3 per update — OpenCombine", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        let cancellable = openCombineLatest3Sum(a, b, c).sink { blackHole($0) }
        a.send(0); b.send(0); c.send(0)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            switch i % 3 {
            case 0: a.send(i)
            case 1: b.send(i)
            default: c.send(i)
            }
        }
        benchmark.stopMeasurement()
        cancellable.cancel()
    }

    Benchmark("W3 combineLatest3 per update — Hand", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let a = Callbacks()
        let b = Callbacks()
        let c = Callbacks()
        let tokens = handCombineLatest3(a, b, c, sink: { blackHole($0) })
        a.send(0); b.send(0); c.send(0)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            switch i % 3 {
            case 0: a.send(i)
            case 1: b.send(i)
            default: c.send(i)
            }
        }
        benchmark.stopMeasurement()
        a.remove(tokens[0]); b.remove(tokens[1]); c.remove(tokens[2])
    }
}
