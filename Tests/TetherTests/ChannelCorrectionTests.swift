import Testing
import Tether
import TetherTestSupport

@Model
final class Gauge {
    var level = 0
    var reading = Reading(0)
}

/// A value that is deliberately not `Equatable`: a channel cannot compare it to what it assigned.
struct Reading: Sendable {
    var value: Int
    init(_ value: Int) { self.value = value }
}

/// Makes `gauge` clamp its level (and its reading) to at most `limit`, from an observer of the
/// property: the correction is made re-entrantly, while the too-large value is being delivered.
@discardableResult
func clamp(_ gauge: Gauge, to limit: Int) -> [any Disposable] {
    [
        observe(gauge, \.level).subscribe(with: gauge) { gauge, level in
            if level > limit { gauge.level = limit }
        },
        observe(gauge, \.reading).subscribe(with: gauge) { gauge, reading in
            if reading.value > limit { gauge.reading = Reading(limit) }
        },
    ]
}

@Suite("Channels and a model's own corrections")
struct ChannelCorrectionTests {
    /// The field sends 15, the model clamps it to 10 while the channel is assigning it: the field
    /// shows 10. Whether the clamp observes before or after the channel's terminal must not matter.
    @Test(arguments: [true, false])
    func aClampReachesTheField(clampFirst: Bool) {
        let gauge = Gauge()
        if clampFirst { clamp(gauge, to: 10) }
        let field = Channel<Int>()
        let shown = Recorder<Int, Never>()
        shown.record(field.leading.signal)
        bind(channel(gauge, \.level), field.following)
        if !clampFirst { clamp(gauge, to: 10) }

        field.leading.sendNext(15)
        #expect(gauge.level == 10)
        #expect(shown.values == [0, 10], "the clamp reaches the field")

        field.leading.sendNext(5)
        #expect(gauge.level == 5)
        #expect(shown.values == [0, 10], "a value the field sent is not echoed back")
    }

    /// The same for a value that is not `Equatable`: the channel leaves out the delivery of the
    /// value it assigned, and keeps the correction.
    @Test(arguments: [true, false])
    func aClampOfANonEquatableValueReachesTheField(clampFirst: Bool) {
        let gauge = Gauge()
        if clampFirst { clamp(gauge, to: 10) }
        let field = Channel<Reading>()
        let shown = Recorder<Reading, Never>()
        shown.record(field.leading.signal)
        bind(channel(gauge, \.reading), field.following)
        if !clampFirst { clamp(gauge, to: 10) }

        field.leading.sendNext(Reading(15))
        #expect(gauge.reading.value == 10)
        #expect(shown.values.map(\.value) == [0, 10], "the clamp reaches the field")

        field.leading.sendNext(Reading(5))
        #expect(gauge.reading.value == 5)
        #expect(shown.values.map(\.value) == [0, 10], "a value the field sent is not echoed back")
    }

    /// Two models bound through their terminals: B's value reaches A, A clamps it, the clamp
    /// reaches B.
    @Test func aClampReachesTheOtherModel() {
        let a = Gauge()
        let b = Gauge()
        clamp(a, to: 10)
        let levelsOfB = Recorder<Int, Never>()
        levelsOfB.record(observe(b, \.level))
        bind(channel(a, \.level), channel(b, \.level))

        b.level = 15
        #expect(a.level == 10)
        #expect(b.level == 10, "A's clamp reaches B")
        #expect(levelsOfB.values == [0, 15, 10])

        b.level = 7
        #expect(a.level == 7)
        #expect(levelsOfB.values == [0, 15, 10, 7], "nothing echoes back to B")
    }

    /// The same with a value that is not `Equatable`.
    @Test func aClampOfANonEquatableValueReachesTheOtherModel() {
        let a = Gauge()
        let b = Gauge()
        clamp(a, to: 10)
        let readingsOfB = Recorder<Reading, Never>()
        readingsOfB.record(observe(b, \.reading))
        bind(channel(a, \.reading), channel(b, \.reading))
        #expect(readingsOfB.values.map(\.value) == [0, 0], "A's value reaches B first (B cannot tell it is equal)")

        b.reading = Reading(15)
        #expect(a.reading.value == 10)
        #expect(b.reading.value == 10, "A's clamp reaches B")
        #expect(readingsOfB.values.map(\.value) == [0, 0, 15, 10])

        b.reading = Reading(7)
        #expect(a.reading.value == 7)
        #expect(readingsOfB.values.map(\.value) == [0, 0, 15, 10, 7], "nothing echoes back to B")
    }

    /// Both models clamp, to different limits: the corrections settle on the smaller limit and
    /// stop there (each is idempotent), whichever side the value starts from.
    @Test(arguments: [true, false])
    func twoDifferentClampsConverge(fromA: Bool) {
        let a = Gauge()
        let b = Gauge()
        clamp(a, to: 10)
        clamp(b, to: 8)
        let levelsOfA = Recorder<Int, Never>()
        let levelsOfB = Recorder<Int, Never>()
        levelsOfA.record(observe(a, \.level))
        levelsOfB.record(observe(b, \.level))
        bind(channel(a, \.level), channel(b, \.level))

        if fromA { a.level = 15 } else { b.level = 15 }
        #expect(a.level == 8)
        #expect(b.level == 8)
        if fromA {
            // A clamps 15 to 10, but B's 8 arrives before A delivers its 10: A delivers 8.
            #expect(levelsOfA.values == [0, 15, 8])
            #expect(levelsOfB.values == [0, 15, 8])
        } else {
            #expect(levelsOfA.values == [0, 15, 10, 8])
            #expect(levelsOfB.values == [0, 15, 10, 8])
        }
    }

    /// The same with values that are not `Equatable`, which the models cannot compare: where a
    /// terminal assigns a value while its property is being delivered, the value is delivered
    /// after the assignment and sent back once more; the other side's terminal then leaves out
    /// the delivery of its own assignment, and it stops there.
    @Test(arguments: [true, false])
    func twoDifferentClampsOfANonEquatableValueConverge(fromA: Bool) {
        let a = Gauge()
        let b = Gauge()
        clamp(a, to: 10)
        clamp(b, to: 8)
        let readingsOfA = Recorder<Reading, Never>()
        let readingsOfB = Recorder<Reading, Never>()
        readingsOfA.record(observe(a, \.reading))
        readingsOfB.record(observe(b, \.reading))
        bind(channel(a, \.reading), channel(b, \.reading))

        if fromA { a.reading = Reading(15) } else { b.reading = Reading(15) }
        #expect(a.reading.value == 8)
        #expect(b.reading.value == 8)
        // Each history starts with the current value and the value bind(_:_:) exchanged (0).
        if fromA {
            #expect(readingsOfA.values.map(\.value) == [0, 0, 15, 8])
            #expect(readingsOfB.values.map(\.value) == [0, 0, 15, 8, 8])
        } else {
            #expect(readingsOfA.values.map(\.value) == [0, 0, 15, 10, 10, 8])
            #expect(readingsOfB.values.map(\.value) == [0, 0, 15, 10, 8])
        }
    }

    /// Every subscriber of a terminal's signal misses the value the terminal assigned, and gets
    /// the correction.
    @Test func everySubscriberOfATerminalGetsTheCorrectionAndNoEcho() {
        let gauge = Gauge()
        clamp(gauge, to: 10)
        let terminal = channel(gauge, \.level)
        let first = Recorder<Int, Never>()
        let second = Recorder<Int, Never>()
        first.record(terminal.signal)
        second.record(terminal.signal)

        terminal.sendNext(15)
        terminal.sendNext(4)
        #expect(gauge.level == 4)
        #expect(first.values == [0, 10])
        #expect(second.values == [0, 10])
    }
}
