import Testing
import TetherTerminal
import TetherTestSupport

@Test func terminalModuleReExportsTether() {
    let channel = Channel<String>()
    let seen = Recorder<String, Never>()
    let subscription = seen.record(channel.following.signal)
    channel.leading.sendNext("x")
    #expect(seen.values == ["x"])
    subscription.dispose()
}
