import Testing
import TetherTerminal

@Suite struct StatusLineTests {
    @Test func showsHelpAlone() {
        let status = StatusLine(help: "Tab move · Ctrl-C quit")
        let screen = status.rendered(width: 24)
        #expect(screen.lines == ["Tab move · Ctrl-C quit  "])
        #expect(screen[23, 0] == Cell(" ", style: .reverse))
    }

    @Test func showsMessageLeftAndHelpRightWhenBothFit() {
        let status = StatusLine(help: "q quit")
        status.setMessage("已保存")
        #expect(status.rendered(width: 16).lines == ["已保存    q quit"])
        #expect(status.rendered(width: 10).lines == ["已保存    "])
        status.setMessage(nil)
        #expect(status.rendered(width: 10).lines == ["q quit    "])
    }

    @Test func labelUsesTheTitleStyle() {
        let label = Label("Invoice")
        #expect(label.rendered(width: 8).lines == ["Invoice "])
        #expect(label.rendered(width: 8)[0, 0] == Cell("I", style: .bold))
        #expect(!label.isFocusable)
    }
}
