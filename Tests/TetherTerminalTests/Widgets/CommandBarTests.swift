import Testing
import TetherTerminal

@Suite struct CommandBarTests {
    /// A key applies its command; a disabled command's key is dimmed and does nothing.
    @Test func keysApplyEnabledCommandsAndShowDisabledOnesDimmed() {
        let canSave = BehaviorSubject<Bool, Never>(false)
        var saved = 0
        var created = 0
        let save = Command<Void, Void, Never>(enabledIf: canSave.signal) { Signal.just(()) }
        let new = Command<Void, Void, Never> { Signal.just(()) }
        let subscriptions = [save.values.sink { saved += 1 }, new.values.sink { created += 1 }]
        let bar = CommandBar([.init(.control("s"), "Save", save), .init(.control("n"), "New", new)])
        var redraws = 0
        let redraw = bar.changes.sink { redraws += 1 }

        let disabled = bar.rendered(width: 18)
        #expect(disabled.lines == ["^S Save  ^N New   "])
        #expect(disabled[0, 0] == Cell("^", style: .dim))
        #expect(disabled[3, 0] == Cell("S", style: .dim))
        #expect(disabled[9, 0] == Cell("^", style: .bold))
        #expect(bar.handle(.control("s")) == .handled)
        #expect(saved == 0, "a disabled command's key does nothing")

        canSave.sendNext(true)
        #expect(redraws == 1)
        #expect(bar.rendered(width: 18)[0, 0] == Cell("^", style: .bold))
        #expect(bar.handle(.control("s")) == .handled)
        #expect(bar.handle(.control("n")) == .handled)
        #expect(bar.handle(.control("x")) == .ignored)
        #expect(saved == 1 && created == 1)
        #expect(bar.rendered(width: 12).lines == ["^S Save     "], "only whole pairs are drawn")
        for subscription in subscriptions + [redraw] { subscription.dispose() }
    }
}
