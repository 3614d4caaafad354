import Testing
import TetherSignals
import TetherTestSupport

@Suite("logEvents")
struct LogEventsTests {
    @Test func logsTheWholeLifeWithTheSignalName() {
        let lines = Recorder<String, Never>()
        let (recorder, _) = Signal(sequence: [1, 2]).named("numbers")
            .logEvents(to: { lines.append(.next($0)) })
            .record()
        #expect(recorder.events == [.next(1), .next(2), .completed])
        #expect(lines.values == [
            "[numbers] subscribed",
            "[numbers] next(1)",
            "[numbers] next(2)",
            "[numbers] completed",
            "[numbers] disposed",
        ])
    }

    @Test func prefixAndErrorAndDisposal() {
        let lines = Recorder<String, Never>()
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.named("src").logEvents("search", to: { lines.append(.next($0)) }).record()
        source.send(3)
        source.fail(.boom)
        #expect(recorder.events == [.next(3), .error(.boom)])
        #expect(lines.values == ["search [src] subscribed", "search [src] next(3)", "search [src] error(boom)", "search [src] disposed"])
        #expect(!source.isSubscribed)
    }

    @Test func disposingIsLogged() {
        let lines = Recorder<String, Never>()
        let source = CountingSource<Int, Never>()
        let disposable = source.signal.logEvents("p", to: { lines.append(.next($0)) }).subscribe()
        disposable.dispose()
        source.send(1)
        #expect(lines.values == ["p subscribed", "p disposed"])
        #expect(source.cleanups.count == 1)
    }

    @Test func unnamedSignalAndOperatorsDropTheName() {
        let lines = Recorder<String, Never>()
        _ = Signal<Int, Never>.just(1).named("named").map { $0 + 1 }.logEvents(to: { lines.append(.next($0)) }).subscribe()
        #expect(lines.values == ["[signal] subscribed", "[signal] next(2)", "[signal] completed", "[signal] disposed"])
    }

    @Test func keepsTheNameOfTheSignalItIsCalledOn() {
        let lines = Recorder<String, Never>()
        let logged = Signal<Int, Never>.just(1).named("kept").logEvents(to: { _ in })
        #expect(logged.name == "kept")
        #expect(Signal<Int, Never>.just(1).map { $0 }.name == nil)
        _ = logged.logEvents("outer", to: { lines.append(.next($0)) }).subscribe()
        #expect(lines.values.first == "outer [kept] subscribed")
    }

    @Test func namesAreOptional() {
        #expect(Signal<Int, Never>.never.name == nil)
        #expect(Signal<Int, Never>.never.named("n").name == "n")
    }
}
