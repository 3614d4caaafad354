// W7: the cost of one subscribe + dispose of a map -> subscriber subscription on a hot source,
// with no other subscription alive, and with 100,000 other subscriptions alive on the same
// source. The target is no growth: the two numbers should be about equal.
// The 100,000 subscriptions are made once per benchmark, in its setup hook, outside the
// measurement; each sample then subscribes and disposes 1,000 times.
import Benchmark
import OpenCombine
import TetherSignals

let w7Alive = 100_000

/// What a W7 benchmark keeps alive between its setup, its samples and its teardown.
final class W7State<Source, Token> {
    var source: Source
    var alive: [Token] = []
    init(_ source: Source) { self.source = source }
}

func registerW7() {
    for alive in [0, w7Alive] {
        let label = alive == 0 ? "0 alive" : "100k alive"
        let config = Benchmark.Configuration(scalingFactor: .kilo, maxDuration: .seconds(1))

        let tether = W7State<TetherSignals.Subject<Int, Never>, any Disposable>(TetherSignals.Subject())
        Benchmark("W7 subscribe+dispose, \(label) — Tether", configuration: config, closure: { benchmark in
            let signal = tether.source.signal.map { $0 * 2 }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let subscription = signal.subscribe(next: { blackHole($0) })
                subscription.dispose()
            }
        }, setup: {
            tether.alive.reserveCapacity(alive)
            for _ in 0..<alive {
                tether.alive.append(tether.source.signal.map { $0 * 2 }.subscribe(next: { blackHole($0) }))
            }
        }, teardown: {
            for subscription in tether.alive { subscription.dispose() }
            tether.alive = []
        })

        let combine = W7State<PassthroughSubject<Int, Never>, AnyCancellable>(PassthroughSubject())
        Benchmark("W7 subscribe+dispose, \(label) — OpenCombine", configuration: config, closure: { benchmark in
            let publisher = combine.source.map { $0 * 2 }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let cancellable = publisher.sink { blackHole($0) }
                cancellable.cancel()
            }
        }, setup: {
            combine.alive.reserveCapacity(alive)
            for _ in 0..<alive {
                combine.alive.append(combine.source.map { $0 * 2 }.sink { blackHole($0) })
            }
        }, teardown: {
            for cancellable in combine.alive { cancellable.cancel() }
            combine.alive = []
        })

        let hand = W7State<Callbacks, Int>(Callbacks())
        Benchmark("W7 subscribe+dispose, \(label) — Hand", configuration: config, closure: { benchmark in
            let source = hand.source
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let token = handMapSubscribe(source, sink: { blackHole($0) })
                source.remove(token)
            }
        }, setup: {
            hand.alive.reserveCapacity(alive)
            for _ in 0..<alive {
                hand.alive.append(handMapSubscribe(hand.source, sink: { blackHole($0) }))
            }
        }, teardown: {
            for token in hand.alive.reversed() { hand.source.remove(token) }
            hand.alive = []
        })
    }
}
