import Testing
import Tether
import TetherTestSupport

// An evaluation of a computed property is compared, read by read, with the last one (a cursor
// into the last evaluation's reads, which ends on a marker no read matches): these tests make
// the reads shrink to a prefix, grow past the end, change order and repeat, and check both what
// the observer receives and which properties stay observed.

/// A getter whose reads are `long, a, b, c` or only `long, a`, and getters that read in an order
/// that depends on a flag, or read one property twice.
@Model
final class Reads {
    var long = true
    var reversed = false
    var a = 1
    var b = 10
    var c = 100
    var sum: Int { long ? a + b + c : a }
    var ordered: Int { reversed ? c * 1_000 + b : b * 1_000 + c }
    var twice: Int { a + a }
}

@Suite("Evaluations compared with the last one's reads")
struct RecordingTests {
    /// The observer counts of `long`, `reversed`, `a`, `b`, `c`.
    func observed(_ model: Reads) -> [Int] {
        (0..<5).map { model._$registrar.observerCount(index: $0) }
    }

    @Test func readsThatShrinkToAPrefixStopObservingTheRest() {
        let model = Reads()
        let sums = Recorder<Int, Never>()
        let subscription = sums.record(observe(model, \.sum))
        #expect(observed(model) == [1, 0, 1, 1, 1])

        model.long = false          // reads long, a: the last evaluation's first two reads
        #expect(observed(model) == [1, 0, 1, 0, 0])
        model.b = 20                // no longer a dependency: nothing is sent
        model.c = 200
        model.a = 2

        model.long = true           // reads long, a, then b and c past the end of the last reads
        #expect(observed(model) == [1, 0, 1, 1, 1])
        model.b = 30

        #expect(sums.events == [.next(111), .next(1), .next(2), .next(222), .next(232)])
        subscription.dispose()
        #expect(observed(model) == [0, 0, 0, 0, 0])
    }

    @Test func readsInAnotherOrderKeepEveryDependency() {
        let model = Reads()
        let values = Recorder<Int, Never>()
        let subscription = values.record(observe(model, \.ordered))
        model.reversed = true       // reads reversed, c, b instead of reversed, b, c
        #expect(observed(model) == [0, 1, 0, 1, 1])
        model.b = 20
        model.c = 200
        model.reversed = false
        #expect(observed(model) == [0, 1, 0, 1, 1])
        model.c = 300
        #expect(values.events == [.next(10_100), .next(100_010), .next(100_020), .next(200_020), .next(20_200), .next(20_300)])
        subscription.dispose()
    }

    @Test func aPropertyReadTwiceIsObservedOnce() {
        let model = Reads()
        let values = Recorder<Int, Never>()
        let subscription = values.record(observe(model, \.twice))
        #expect(model._$registrar.observerCount(index: 2) == 1)
        model.a = 5
        model.a = 6
        #expect(model._$registrar.observerCount(index: 2) == 1)
        #expect(values.events == [.next(2), .next(10), .next(12)])
        subscription.dispose()
        #expect(model._$registrar.observerCount(index: 2) == 0)
    }
}
