// W6: bytes of memory per live map -> subscriber subscription, with 100,000 alive on one hot
// source, for Tether, OpenCombine and hand-written closures.
//
// Measured with glibc's `mallinfo2().uordblks` (bytes in allocated chunks, malloc's own chunk
// headers and rounding included) before and after making the subscriptions, divided by their
// number. This runs as a plain executable, outside package-benchmark, because package-benchmark
// preloads a malloc interposer that adds a 16-byte header to every allocation.
//
//   swift run -c release TetherMemory              W6 table (markdown)
//   swift run -c release TetherMemory count W N    run workload W N times (for valgrind's
//                                                  allocation totals; W: see `countWorkloads`)
import CMallocInfo
import Glibc
import OpenCombine
import TetherSignals

let alive = 100_000

@inline(never)
func sink(_ value: Int) {
    // An opaque sink that keeps the value alive (package-benchmark's blackHole is not linked here).
    withExtendedLifetime(value) {}
}

func liveBytes() -> Int { Int(tether_malloc_live_bytes()) }

/// Makes `count` subscriptions with `subscribe`, keeps them in `storage` (reserved beforehand,
/// so its buffer is not counted), and returns the growth of live heap bytes.
@inline(never)
func measure<Token>(_ count: Int, into storage: inout [Token], _ subscribe: () -> Token) -> Int {
    storage.reserveCapacity(count)
    let before = liveBytes()
    for _ in 0..<count { storage.append(subscribe()) }
    let after = liveBytes()
    return after - before
}

struct Row {
    let name: String
    let bytesPerSubscription: Double
}

@inline(never)
func tetherW6(_ count: Int) -> Int {
    let subject = TetherSignals.Subject<Int, Never>()
    var subscriptions: [any Disposable] = []
    let bytes = measure(count, into: &subscriptions) {
        subject.signal.map { $0 * 2 }.subscribe(next: { sink($0) })
    }
    subject.sendNext(1)   // the subscriptions are live: each receives a value
    for subscription in subscriptions { subscription.dispose() }
    return bytes
}

@inline(never)
func openCombineW6(_ count: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    var cancellables: [AnyCancellable] = []
    let bytes = measure(count, into: &cancellables) {
        subject.map { $0 * 2 }.sink { sink($0) }
    }
    subject.send(1)
    for cancellable in cancellables { cancellable.cancel() }
    return bytes
}

/// Hand-written: the same `Callbacks` source and map closure as the package-benchmark target's
/// HandWritten.swift (duplicated: the two targets share no module).
final class Callbacks {
    private var observers: [(token: Int, callback: (Int) -> Void)] = []
    private var nextToken = 0
    @inline(never)
    func add(_ callback: @escaping (Int) -> Void) -> Int {
        let token = nextToken
        nextToken += 1
        observers.append((token, callback))
        return token
    }
    func send(_ value: Int) { for observer in observers { observer.callback(value) } }
    func removeAll() { observers.removeAll() }
}

@inline(never)
func handMapSubscribe(_ source: Callbacks, sink: @escaping (Int) -> Void) -> Int {
    let map: (Int) -> Void = { sink($0 * 2) }
    return source.add(map)
}

@inline(never)
func handW6(_ count: Int) -> Int {
    let source = Callbacks()
    var tokens: [Int] = []
    let bytes = measure(count, into: &tokens) {
        handMapSubscribe(source, sink: { sink($0) })
    }
    source.send(1)
    source.removeAll()
    return bytes
}

// MARK: - Allocation counting helper (for valgrind cross-checks of W2)

let countWorkloads: [String: (Int) -> Void] = [
    "w2-tether-just": { n in
        let signal = Signal<Int, Never>.just(42)
        for _ in 0..<n { signal.subscribe(next: { sink($0) }).dispose() }
    },
    "w2-tether-created": { n in
        let signal = Signal<Int, Never> { observer in
            observer.sendNext(42)
            observer.sendCompleted()
            return nil
        }
        for _ in 0..<n { signal.subscribe(next: { sink($0) }).dispose() }
    },
    "w2-opencombine": { n in
        let publisher = Just(42)
        for _ in 0..<n { publisher.sink { sink($0) }.cancel() }
    },
    "w6-tether": { n in _ = tetherW6(n) },
    "w6-opencombine": { n in _ = openCombineW6(n) },
    "w6-hand": { n in _ = handW6(n) },
]

let arguments = CommandLine.arguments

if arguments.count == 2, arguments[1] == "m3-steps" {
    let steps = observerSteps(count: alive)
    print("M3 step by step: bytes per model added by each step, \(alive) models (mallinfo2 uordblks)")
    print("")
    for (step, bytes) in steps { print("- \(step): \(String(format: "%.1f", bytes))") }
    print("- in all: \(String(format: "%.1f", steps.reduce(0) { $0 + $1.bytes }))")
    exit(0)
}
if arguments.count == 4, arguments[1] == "count", let workload = countWorkloads[arguments[2]], let n = Int(arguments[3]) {
    workload(n)
    exit(0)
}

// MARK: - M2's peak memory (`TetherMemory peak`)

if arguments.count == 5, arguments[1] == "peak-child", let count = Int(arguments[4]) {
    print(try peakChild(arguments[2], path: arguments[3], count: count))
    exit(0)
}

if arguments.count == 2, arguments[1] == "peak" {
    let count = 1_000_000
    let runs = 3
    let path = try makeModelFile(count: count)
    let results = try peakMedians(path: path, count: count, runs: runs)
    removeModelFile(path)
    let raw = results.first { $0.version == "raw" }!.median
    print("M2 peak: peak resident memory (VmHWM) of a process that loads \(count) rows and reads a property of each once, MB (median of \(runs))")
    print("")
    print("| version | peak RSS (MB) | / raw |")
    print("|---|---:|---:|")
    for result in results { print("| \(result.version) | \(format(result.median)) | \(format(result.median / raw))x |") }
    print("")
    print("runs: " + results.map { "\($0.version) \($0.all.map(format))" }.joined(separator: ", "))
    exit(0)
}

// MARK: - M1-M3 (`TetherMemory models`)

if arguments.count == 2, arguments[1] == "models" {
    let count = alive
    let runs = 5
    let path = try makeModelFile(count: count)
    // Warm up (metadata, statement caches), then the median of 5 runs of each.
    _ = try tetherModels(path, count: count)
    _ = rawModels(path, count: count)
    _ = try grdbModels(path, count: count)
    _ = tetherObservers(count: 1_000)
    _ = handObservers(count: 1_000)
    func median(_ body: () throws -> Int) rethrows -> (median: Double, all: [Double]) {
        let all = try (0..<runs).map { _ in Double(try body()) / Double(count) }
        return (all.sorted()[runs / 2], all)
    }
    let tetherRuns = try (0..<runs).map { _ in try tetherModels(path, count: count) }
    let loaded = tetherRuns.map { Double($0.loaded) / Double(count) }.sorted()[runs / 2]
    let firstRead = tetherRuns.map { Double($0.firstRead) / Double(count) }.sorted()[runs / 2]
    let raw = median { rawModels(path, count: count) }
    let grdb = try median { try grdbModels(path, count: count) }
    let observed = median { tetherObservers(count: count) }
    let handObserved = median { handObservers(count: count) }
    removeModelFile(path)
    print("M1-M3: bytes per model, \(count) models (mallinfo2 uordblks; median of \(runs))")
    print("")
    print("| | Tether | raw class (C API) | GRDB record | hand-written observable | Goal |")
    print("|---|---:|---:|---:|---:|---|")
    print("| M1 loaded (4 columns), kept in an array | \(format(loaded)) | \(format(raw.median)) | \(format(grdb.median)) | | <= 160 |")
    print("| M2 first read of a property, bridge on | +\(format(firstRead)) | | | | <= 64 |")
    print("| M3 a model with 4 key-path observers | \(format(observed.median)) | | | \(format(handObserved.median)) | <= 600 |")
    print("")
    print("runs: raw \(raw.all.map(format)), GRDB \(grdb.all.map(format)), M3 Tether \(observed.all.map(format)), hand \(handObserved.all.map(format))")
    exit(0)
}

// MARK: - W6

// Warm up: first use of each generic type allocates runtime metadata; keep that out.
_ = tetherW6(1_000)
_ = openCombineW6(1_000)
_ = handW6(1_000)

let runs = 5
func perSubscription(_ body: (Int) -> Int) -> (median: Double, all: [Double]) {
    let all = (0..<runs).map { _ in Double(body(alive)) / Double(alive) }
    return (all.sorted()[runs / 2], all)
}

let tether = perSubscription(tetherW6)
let openCombine = perSubscription(openCombineW6)
let hand = perSubscription(handW6)

func format(_ value: Double) -> String {
    String(Int((value * 10).rounded())).dropLast().description + "." + String(Int((value * 10).rounded()) % 10)
}

print("W6: bytes per live map -> subscriber subscription, \(alive) alive (mallinfo2 uordblks; median of \(runs))")
print("")
print("| | Tether | OpenCombine | Hand-written | Tether / hand | OpenCombine / hand | Target |")
print("|---|---:|---:|---:|---:|---:|---|")
print(
    "| bytes per subscription | \(format(tether.median)) | \(format(openCombine.median)) | \(format(hand.median)) "
        + "| \(format(tether.median / hand.median))x | \(format(openCombine.median / hand.median))x | Tether <= 250 bytes |"
)
print("")
print("runs: Tether \(tether.all.map(format)), OpenCombine \(openCombine.all.map(format)), hand \(hand.all.map(format))")
