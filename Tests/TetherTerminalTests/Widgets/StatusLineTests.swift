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

    @Test func aNarrowRowShowsTheShortHelpAndCutsALongMessageWithAnEllipsis() {
        let status = StatusLine(help: "Tab/Shift-Tab move · Enter confirm · Ctrl-C quit", shortHelp: "Tab move · ^C quit")
        #expect(status.rendered(width: 50).lines == ["Tab/Shift-Tab move · Enter confirm · Ctrl-C quit  "])
        #expect(status.rendered(width: 20).lines == ["Tab move · ^C quit  "], "the whole short help, its quit key included")
        #expect(status.rendered(width: 10).lines == ["Tab move …"], "narrower still: cut, with the sign")
        status.setMessage("Invoice #2 was deleted by another program.")
        #expect(status.rendered(width: 20).lines == ["Invoice #2 was dele…"])
    }

    @Test func labelUsesTheTitleStyle() {
        let label = Label("Invoice")
        #expect(label.rendered(width: 8).lines == ["Invoice "])
        #expect(label.rendered(width: 8)[0, 0] == Cell("I", style: .bold))
        #expect(!label.isFocusable)
    }
}
