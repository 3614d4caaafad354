import Testing
@testable import TetherTerminal
import TetherTestSupport

@Suite struct ListViewTests {
    private func list(_ items: [String], height: Int = 4) -> ListView<String> {
        let list = ListView<String>(title: "Records", height: height) { $0 }
        list.setItems(items)
        return list
    }

    @Test func firstItemsSelectTheFirst() {
        let view = list([])
        #expect(view.selectedIndex == nil)
        view.setItems(["a", "b"])
        #expect(view.selectedIndex == 0)
        #expect(view.selectedItem == "a")
    }

    @Test func arrowsMoveTheSelectionAndStopAtTheEnds() {
        let view = list(["a", "b", "c"])
        #expect(view.handle(.down) == .handled)
        #expect(view.selectedIndex == 1)
        _ = view.handle(.down)
        _ = view.handle(.down)
        #expect(view.selectedIndex == 2)
        _ = view.handle(.home)
        #expect(view.selectedIndex == 0)
        _ = view.handle(.up)
        #expect(view.selectedIndex == 0)
        _ = view.handle(.end)
        #expect(view.selectedIndex == 2)
        #expect(view.handle(.tab) == .ignored)
        #expect(view.handle(.character("q")) == .ignored)
    }

    @Test func selectionSignalSendsTheHistory() {
        let view = list(["a", "b", "c"])
        let seen = Recorder<Int?, Never>()
        let subscription = seen.record(view.selection)
        _ = view.handle(.down)
        _ = view.handle(.down)
        _ = view.handle(.down)        // already at the end: no change, nothing sent
        view.setItems(["a"])          // clamped
        view.setItems([])
        #expect(seen.values == [0, 1, 2, 0, nil])
        subscription.dispose()
    }

    @Test func itemsFromASignal() {
        let rows = BehaviorSubject<[String], Never>(["x"])
        let view = ListView(title: nil, items: rows.signal) { $0.uppercased() }
        #expect(view.items == ["x"])
        rows.sendNext(["x", "y"])
        #expect(view.items == ["x", "y"])
        #expect(view.rendered(width: 4, height: 3).lines == ["X   ", "Y   ", "    "])
    }

    @Test func rendersTitleItemsAndSelection() {
        let view = list(["Ada", "张三", "Grace"])
        _ = view.handle(.down)
        let focused = view.rendered(width: 8, height: 4, focused: true)
        #expect(focused.lines == ["Records ", "Ada     ", "张三    ", "Grace   "])
        #expect(focused[0, 2] == Cell("张", style: .reverse, width: 2))
        #expect(focused[7, 2] == Cell(" ", style: .reverse))   // the whole row is highlighted
        #expect(focused[0, 1] == Cell("A"))
        let unfocused = view.rendered(width: 8, height: 4)
        #expect(unfocused[0, 2] == Cell("张", style: .underline, width: 2))
    }

    @Test func scrollsToKeepTheSelectionVisible() {
        let view = list(["a", "b", "c", "d", "e", "f"])
        // Title + 3 rows.
        #expect(view.rendered(width: 2, height: 4).lines == ["Re", "a ", "b ", "c "])
        _ = view.handle(.end)
        #expect(view.rendered(width: 2, height: 4).lines == ["Re", "d ", "e ", "f "])
        // Moving up inside the visible rows does not scroll.
        _ = view.handle(.up)
        _ = view.handle(.up)
        #expect(view.rendered(width: 2, height: 4).lines == ["Re", "d ", "e ", "f "])
        _ = view.handle(.up)
        #expect(view.rendered(width: 2, height: 4).lines == ["Re", "c ", "d ", "e "])
    }

    @Test func pageKeysMoveByTheVisibleRows() {
        let view = list(Array("abcdefghij").map(String.init))
        _ = view.rendered(width: 2, height: 4)   // 3 visible rows
        _ = view.handle(.pageDown)
        #expect(view.selectedIndex == 3)
        _ = view.handle(.pageDown)
        _ = view.handle(.pageDown)
        _ = view.handle(.pageDown)
        #expect(view.selectedIndex == 9)
        _ = view.handle(.pageUp)
        #expect(view.selectedIndex == 6)
    }

    @Test func emptyListShowsItsPlaceholder() {
        let view = list([])
        #expect(view.rendered(width: 10, height: 2).lines == ["Records   ", "(empty)   "])
        #expect(view.rendered(width: 10, height: 2)[0, 1].style == .dim)
        #expect(view.handle(.down) == .handled)
        #expect(view.selectedIndex == nil)
    }

    @Test func scrollOffsetRule() {
        #expect(ListView<Int>.scrollOffset(current: 0, selected: 5, count: 10, rows: 3) == 3)
        #expect(ListView<Int>.scrollOffset(current: 5, selected: 2, count: 10, rows: 3) == 2)
        #expect(ListView<Int>.scrollOffset(current: 4, selected: 5, count: 10, rows: 3) == 4)
        #expect(ListView<Int>.scrollOffset(current: 9, selected: 9, count: 10, rows: 3) == 7)
        #expect(ListView<Int>.scrollOffset(current: 4, selected: 1, count: 2, rows: 3) == 0)
    }

    /// The moves of a window over a longer list: the same keys, clamped to the whole list.
    @Test func targetsOfTheKeysInALongerList() {
        typealias List = ListView<String>
        #expect(List.target(of: .down, from: 5, count: 1_000_000, page: 20) == 6)
        #expect(List.target(of: .pageDown, from: 5, count: 1_000_000, page: 20) == 25)
        #expect(List.target(of: .pageUp, from: 5, count: 1_000_000, page: 20) == 0)
        #expect(List.target(of: .end, from: 5, count: 1_000_000, page: 20) == 999_999)
        #expect(List.target(of: .down, from: 999_999, count: 1_000_000, page: 20) == 999_999)
        #expect(List.target(of: .home, from: 7, count: 10, page: 0) == 0)
        #expect(List.target(of: .character("x"), from: 5, count: 10, page: 3) == nil)
    }
}
