// W2: a cold one-value signal subscribed and disposed; time and allocations per iteration.
// The signal (publisher, producer) is made once, by an `@inline(never)` function, as when it
// comes from elsewhere in a program; each iteration subscribes, receives the value and the
// completion, and disposes.
//
// (When the signal is built in the same function as the loop, the optimizer inlines the whole
// subscription and keeps all but one object on the stack; that flatters the figures and is
// not what a program that gets its signals from elsewhere sees.)
import Benchmark
import OpenCombine
import TetherSignals

@inline(never)
func makeTetherJust(_ value: Int) -> Signal<Int, Never> {
    .just(value)
}

@inline(never)
func makeTetherCreated(_ value: Int) -> Signal<Int, Never> {
    Signal { observer in
        observer.sendNext(value)
        observer.sendCompleted()
        return nil
    }
}

@inline(never)
func makeOpenCombineJust(_ value: Int) -> Just<Int> {
    Just(value)
}

func registerW2() {
    let config = Benchmark.Configuration(scalingFactor: .kilo)

    Benchmark("W2 just subscribe+dispose — Tether", configuration: config) { benchmark in
        let signal = makeTetherJust(42)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let subscription = signal.subscribe(next: { blackHole($0) })
            subscription.dispose()
        }
    }

    Benchmark("W2 created subscribe+dispose — Tether", configuration: config) { benchmark in
        let signal = makeTetherCreated(42)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let subscription = signal.subscribe(next: { blackHole($0) })
            subscription.dispose()
        }
    }

    Benchmark("W2 just subscribe+dispose — OpenCombine", configuration: config) { benchmark in
        let publisher = makeOpenCombineJust(42)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let cancellable = publisher.sink { blackHole($0) }
            cancellable.cancel()
        }
    }

    Benchmark("W2 just subscribe+dispose — Hand", configuration: config) { benchmark in
        let producer = handJust(42)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let token = producer({ blackHole($0) }, {})
            token.cancel()
        }
    }
}
