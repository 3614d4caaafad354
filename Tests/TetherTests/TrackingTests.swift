import Dispatch
import Observation
import Synchronization
import Testing
import Tether

#if canImport(Glibc)
import Glibc
import TetherTestSupport
#endif

// Dependency tracking when several threads evaluate computed properties: each thread records
// only its own reads (each finds its state in a thread-local variable), and threads that exit
// free their tracking state without touching a new thread's.

/// A getter whose reads depend on `useB`, and a value that is not `Equatable`.
@Model
final class Switcher {
    var useB = false
    var a = 1
    var b = 10
    var c = 100
    var picked: Int { useB ? b + c : a + c }
    var pair: Pair { Pair(first: a, second: useB ? b : c) }
}

/// Not `Equatable`: an observer of `Switcher.pair` sends every recomputed value.
struct Pair: Sendable {
    let first: Int
    let second: Int
}

/// One write of a script, and the script run against a `Switcher` and against plain values.
enum SwitcherWrite: Sendable {
    case useB(Bool), a(Int), b(Int), c(Int)

    /// A script of `count` writes that switches branches often, different for each `seed`.
    static func script(seed: Int, count: Int) -> [SwitcherWrite] {
        (0..<count).map { step in
            let value = seed * 1_000 + step
            switch (step + seed) % 5 {
            case 0: return .useB(step % 3 == 0)
            case 1: return .a(value)
            case 2: return .b(value)
            case 3: return .c(value)
            default: return .useB(step % 2 == 0)
            }
        }
    }

    func apply(to switcher: Switcher) {
        switch self {
        case .useB(let value): switcher.useB = value
        case .a(let value): switcher.a = value
        case .b(let value): switcher.b = value
        case .c(let value): switcher.c = value
        }
    }

    /// The values an observer of `picked` must see for `script`: the first value, then each
    /// change.
    static func expectedPicked(_ script: [SwitcherWrite]) -> [Int] {
        var (useB, a, b, c) = (false, 1, 10, 100)
        var values = [a + c]
        for write in script {
            switch write {
            case .useB(let value): useB = value
            case .a(let value): a = value
            case .b(let value): b = value
            case .c(let value): c = value
            }
            let picked = useB ? b + c : a + c
            if picked != values.last { values.append(picked) }
        }
        return values
    }
}

/// Runs a script against a new switcher observed on the calling thread; returns what the
/// observer of `picked` received and the observer counts of `useB`, `a`, `b`, `c` at the end.
func runSwitcherScript(seed: Int, count: Int) -> ScriptResult {
    let switcher = Switcher()
    let picked = Recorder<Int, Never>()
    let subscription = picked.record(observe(switcher, \.picked))
    let script = SwitcherWrite.script(seed: seed, count: count)
    for write in script { write.apply(to: switcher) }
    let observed = (0..<4).map { switcher._$registrar.observerCount(index: $0) }
    subscription.dispose()
    return (picked.values, observed, script)
}

/// The observer counts a `picked` observer leaves on `useB`, `a`, `b`, `c` after `script`.
func expectedObserved(_ script: [SwitcherWrite]) -> [Int] {
    var useB = false
    for case .useB(let value) in script { useB = value }
    return useB ? [1, 0, 1, 1] : [1, 1, 0, 1]
}

/// A value shared between threads.
final class Shared<Value: Sendable>: Sendable {
    private let state: Mutex<Value>
    init(_ value: Value) { state = Mutex(value) }
    var value: Value { state.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { state.withLock { body(&$0) } }
}

typealias ScriptResult = (values: [Int], observed: [Int], script: [SwitcherWrite])

/// Runs `body` on a new thread, which exits when `body` returns, and waits for it.
func onNewThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    let status = pthread_create(&thread, nil, { raw in
        Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, box)
    precondition(status == 0, "pthread_create failed (\(status))")
    pthread_join(thread, nil)
}

@Suite("Dependency tracking on several threads")
struct TrackingTests {
    @Test func computedObserversOnSeveralThreadsEachRecordTheirOwnReads() {
        // Four threads evaluate at the same time, each its own model: every read must go to its
        // own thread's evaluation.
        let results = Shared<[Int: ScriptResult]>([:])
        DispatchQueue.concurrentPerform(iterations: 4) { seed in
            let result = runSwitcherScript(seed: seed, count: 2_000)
            results.update { $0[seed] = result }
        }
        let all = results.value
        #expect(all.count == 4)
        for (seed, result) in all.sorted(by: { $0.key < $1.key }) {
            #expect(result.values == SwitcherWrite.expectedPicked(result.script), "thread \(seed)")
            #expect(result.observed == expectedObserved(result.script), "thread \(seed)")
        }
    }

    @Test func threadsThatExitLeaveNewThreadsAFreshTrackingState() {
        // Each thread evaluates, then exits (its tracking state is freed; a new thread may get
        // the same thread id and the same memory); the test's own thread evaluates in between.
        for round in 0..<12 {
            let result = Shared<ScriptResult?>(nil)
            onNewThread {
                let outcome = runSwitcherScript(seed: round, count: 300)
                result.update { $0 = outcome }
            }
            guard let other = result.value else {
                Issue.record("round \(round): the thread did not run")
                continue
            }
            #expect(other.values == SwitcherWrite.expectedPicked(other.script), "round \(round), new thread")
            #expect(other.observed == expectedObserved(other.script), "round \(round), new thread")
            let mine = runSwitcherScript(seed: 100 + round, count: 300)
            #expect(mine.values == SwitcherWrite.expectedPicked(mine.script), "round \(round), test thread")
            #expect(mine.observed == expectedObserved(mine.script), "round \(round), test thread")
        }
    }

    @Test func aValueThatIsNotEquatableIsSentAfterEveryRecomputation() {
        let switcher = Switcher()
        let pairs = Recorder<Pair, Never>()
        pairs.record(observe(switcher, \.pair))
        switcher.a = 2              // first: 2
        switcher.b = 20             // not read while useB is false: nothing
        switcher.c = 100            // equal value: nothing
        switcher.useB = true        // recomputed, same first, second from b: 20
        switcher.useB = true        // equal value: nothing
        switcher.a = 2              // equal: nothing
        switcher.b = 20             // equal: nothing
        switcher.c = 300            // no longer read: nothing
        switcher.useB = false       // second from c again: 300
        #expect(pairs.values.map { [$0.first, $0.second] } == [[1, 100], [2, 100], [2, 20], [2, 300]])
    }
}

extension ObservationInteropTests {
    @Test func aThreadThatEvaluatedStillReportsItsOwnLaterReadsToObservation() {
        // Evaluating a computed property leaves the thread holding tracking: its next read
        // outside any evaluation must still be reported to Observation (and give the hold back).
        let switcher = Switcher()
        let picked = Recorder<Int, Never>()
        picked.record(observe(switcher, \.picked))
        for round in 0..<3 {
            switcher.a = 10 + round                 // an evaluation on this thread
            let fired = Flag()
            withObservationTracking {
                _ = switcher.b                      // a read outside any evaluation
            } onChange: {
                fired.set()
            }
            switcher.b = 50 + round
            #expect(fired.isSet, "round \(round)")
        }
        #expect(picked.values == [101, 110, 111, 112])
        #expect((0..<4).map { switcher._$registrar.observerCount(index: $0) } == [1, 1, 0, 1])
    }

    @Test func readsOnAnotherThreadAreNotRecordedByThisThreadsEvaluations() {
        // This thread holds tracking (it evaluated last); another thread reads its own model,
        // which must be reported to Observation there and not become a dependency here.
        let switcher = Switcher()
        let picked = Recorder<Int, Never>()
        picked.record(observe(switcher, \.picked))
        switcher.a = 5
        let fired = Flag()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let other = Switcher()
            withObservationTracking {
                _ = other.c
            } onChange: {
                fired.set()
            }
            other.c = 7
            #expect((0..<4).map { other._$registrar.observerCount(index: $0) } == [0, 0, 0, 0])
            done.signal()
        }
        done.wait()
        #expect(fired.isSet)
        switcher.c = 200
        #expect(picked.values == [101, 105, 205])
    }
}
