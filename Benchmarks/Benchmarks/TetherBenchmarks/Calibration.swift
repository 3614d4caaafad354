// Calibration: what one uncontended lock round trip and one atomic read-modify-write cost on
// the machine running the benchmarks, to read the other figures against (Tether's thread
// safety is built from these two), and what measuring an empty sample costs.
import Benchmark
import Synchronization

final class CalibrationState: Sendable {
    let mutex = Mutex<Int>(0)
    let atomic = Atomic<Int>(0)
}

func registerCalibration() {
    Benchmark("C0 Mutex.withLock round trip", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let state = CalibrationState()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { state.mutex.withLock { $0 &+= 1 } }
        benchmark.stopMeasurement()
        blackHole(state.mutex.withLock { $0 })
    }

    // What starting and stopping the measurement of a sample costs, per operation of a
    // 1,000-operation sample (the figure to subtract, in thought, from the fastest rows).
    Benchmark("C0 empty sample", configuration: .init(scalingFactor: .kilo)) { benchmark in
        benchmark.startMeasurement()
        benchmark.stopMeasurement()
    }

    Benchmark("C0 Atomic add", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let state = CalibrationState()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { state.atomic.add(1, ordering: .acquiringAndReleasing) }
        benchmark.stopMeasurement()
        blackHole(state.atomic.load(ordering: .relaxed))
    }
}
