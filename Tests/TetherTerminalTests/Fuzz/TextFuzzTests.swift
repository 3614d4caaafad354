import Foundation
import Testing
import TetherTerminal
import TetherTestSupport

/// Random text of every Unicode category through every widget and the renderer, at random
/// sizes, judged by a `WcwidthTerminal` (glibc's `wcwidth`, as tmux counts columns).
///
/// Each seed is one case: `swift test --filter TextFuzzTests` runs the short set; a failing seed
/// replays with `TETHER_FUZZ_SEED=<seed>`; `scripts/fuzz-terminal` runs many more
/// (`TETHER_FUZZ_SEEDS=<first>-<last>`).
@Suite struct TextFuzzTests {
    /// The seeds to run: `TETHER_FUZZ_SEED` (one), `TETHER_FUZZ_SEEDS` (`first-last`), or the
    /// short set.
    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        if let one = environment["TETHER_FUZZ_SEED"].flatMap(UInt64.init) { return [one] }
        if let range = environment["TETHER_FUZZ_SEEDS"] {
            let bounds = range.split(separator: "-").compactMap { UInt64($0) }
            if bounds.count == 2, bounds[0] <= bounds[1] { return Array(bounds[0]...bounds[1]) }
        }
        return Array(1...40)
    }()

    @Test(arguments: seeds)
    func everyWidgetDrawsAnyTextInExactlyItsColumns(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var renderer = FrameRenderer()
        var size = Size(width: random.within(0...100), height: random.within(0...12))
        var terminal = WcwidthTerminal(width: size.width, height: size.height)
        let text = TextField("T" + RandomText.text(&random, maximum: 3), text: RandomText.text(&random), width: random.chance(50) ? nil : random.within(0...30))
        let number = NumberField<Double>.decimal(RandomText.text(&random, maximum: 2), range: 0...100, width: random.within(1...12))
        let computed = ComputedField(RandomText.text(&random, maximum: 2), Signal<String, Never>.just(RandomText.text(&random)), width: random.within(0...30),
                                     alignment: random.chance(50) ? .leading : .trailing)
        let list = ListView<String>(title: RandomText.text(&random, maximum: 5), height: random.within(1...6), emptyText: RandomText.text(&random, maximum: 5)) { $0 }
        list.setItems((0..<random.below(8)).map { _ in RandomText.text(&random) })
        let status = StatusLine(help: RandomText.text(&random), shortHelp: random.chance(50) ? RandomText.text(&random, maximum: 8) : nil)
        let label = Label(RandomText.text(&random))
        let widgets: [any Widget] = [text, number, computed, list, label]
        let form = Form(widgets, labelWidth: random.chance(50) ? nil : random.within(0...14))

        for step in 0..<30 {
            if random.chance(10) {
                size = Size(width: random.within(0...100), height: random.within(0...12))
                terminal = WcwidthTerminal(width: size.width, height: size.height)
                renderer.invalidate()
            }
            switch random.below(6) {
            case 0: _ = form.handle(random.chance(50) ? .tab : .backTab)
            case 1: status.setMessage(random.chance(20) ? nil : RandomText.text(&random))
            case 2: text.channel.following.sendNext(RandomText.text(&random))
            default: _ = form.handle(RandomText.key(&random))
            }
            for editor in [text.editor, number.editor] {
                #expect((0...editor.text.count).contains(editor.cursor), "seed \(seed) step \(step): the cursor left the text")
            }
            var screen = Screen(size: size)
            let (body, bar) = screen.bounds.dividedRows(at: max(0, size.height - 1))
            form.render(into: &screen, in: body)
            status.render(into: &screen, in: bar, context: RenderContext())
            if let cursor = screen.cursor {
                #expect(screen.bounds.contains(cursor), "seed \(seed) step \(step): the cursor \(cursor) is outside the \(size) window")
            }
            let output = renderer.render(screen)
            do {
                try terminal.feed(output)
                try terminal.check(shows: screen)
            } catch {
                Issue.record("seed \(seed) step \(step) (\(size)): \(error)")
                return
            }
        }
    }

    @Test(arguments: seeds)
    func putFillsExactlyTheColumnsTextIsMeasuredAt(seed: UInt64) throws {
        var random = SeededRandom(seed: seed &+ 1_000_003)
        for _ in 0..<50 {
            let text = RandomText.text(&random)
            let width = DisplayWidth.of(text)
            var screen = Screen(size: Size(width: width + 2, height: 1))
            let end = screen.put(text, at: Position(x: 1, y: 0))
            #expect(end == 1 + width, "seed \(seed): \(text.debugDescription) measured \(width) but filled \(end - 1)")
            // Cut to any width, it never takes more columns than asked for.
            let limit = random.within(0...max(0, width + 1))
            let cut = DisplayWidth.truncated(text, to: limit)
            #expect(DisplayWidth.of(cut) <= limit, "seed \(seed): \(cut.debugDescription) is wider than \(limit)")
            // Every glyph is one character of 1 or 2 columns, and no glyph holds a control byte.
            for character in text {
                for glyph in Glyph.glyphs(of: character) {
                    #expect(glyph.width == 1 || glyph.width == 2)
                    #expect(!glyph.character.unicodeScalars.contains { $0.value < 0x20 || (0x7f..<0xa0).contains($0.value) })
                    #expect(glyph.character.unicodeScalars.allSatisfy { WcwidthTerminal.columns($0) >= 0 },
                            "seed \(seed): \(glyph) holds a scalar wcwidth cannot show")
                }
            }
            var terminal = WcwidthTerminal(width: screen.size.width, height: 1)
            do {
                try terminal.feed(FrameRenderer.fullRedraw(screen))
                try terminal.check(shows: screen)
            } catch {
                Issue.record("seed \(seed): \(text.debugDescription): \(error)")
            }
        }
    }
}
