// The hand-written baselines of the model workloads (W5a-W5d, W8): observable properties as a
// careful developer writes them without a library. A `didSet` that calls a stored closure (or
// a list of them), no locks (single-threaded use), no equality check (every benchmark writes a
// new value each time, so every version notifies on every write). Objects are made and wired
// by `@inline(never)` functions, so the optimizer sees opaque callbacks, as in a real program.

/// W5a: a property with one observer, `didSet { onChange?(x) }`.
final class HandCounter {
    var x = 0 {
        didSet { onChange?(x) }
    }
    var onChange: ((Int) -> Void)?

    init() {}
}

/// W5b: a property with a list of observers.
final class HandCounterMany {
    var x = 0 {
        didSet { for observer in observers { observer(x) } }
    }
    var observers: [(Int) -> Void] = []

    init() {}
}

/// W5c and W8 (hand-written): a plain stored property, nobody observing.
///
/// Not used through a key path anywhere: a class property reachable through a key path keeps
/// a dynamic exclusivity check (`swift_beginAccess`) on every write, which plain hand-written
/// code does not pay. (OpenCombine's `assign(to:on:)` in W8 needs a key path: it gets its own
/// class, `AssignTarget`.)
final class PlainCounter {
    var x = 0

    init() {}
}

/// W8 (OpenCombine): the object that `assign(to: \.x, on:)` writes.
final class AssignTarget {
    var x = 0

    init() {}
}

/// W5d: a total over three inputs, recomputed by each input's `didSet`; the callback is called
/// when the total changed.
final class HandTotals {
    var a = 0 {
        didSet { recompute() }
    }
    var b = 0 {
        didSet { recompute() }
    }
    var c = 0 {
        didSet { recompute() }
    }
    private(set) var total = 0
    var onTotal: ((Int) -> Void)?

    init() {}

    private func recompute() {
        let total = a + b + c
        if total != self.total {
            self.total = total
            onTotal?(total)
        }
    }
}

@inline(never)
func makeHandCounter(sink: @escaping (Int) -> Void) -> HandCounter {
    let counter = HandCounter()
    counter.onChange = sink
    return counter
}

@inline(never)
func makeHandCounterMany(observers: Int, sink: @escaping (Int) -> Void) -> HandCounterMany {
    let counter = HandCounterMany()
    for _ in 0..<observers { counter.observers.append(sink) }
    return counter
}

@inline(never)
func makePlainCounter() -> PlainCounter {
    PlainCounter()
}

/// W5c: the plain store, behind a call the optimizer cannot inline (otherwise it would keep only
/// the last of the loop's stores). The tracked version is called the same way.
@inline(never)
func plainSet(_ counter: PlainCounter, _ value: Int) {
    counter.x = value
}

@inline(never)
func makeHandTotals(sink: @escaping (Int) -> Void) -> HandTotals {
    let totals = HandTotals()
    totals.onTotal = sink
    return totals
}

/// W8 by hand: the source's callback sets the property (holding the object weakly, as a
/// binding that must not keep its target alive does).
@inline(never)
func handBind(_ source: Callbacks, to target: PlainCounter) -> Int {
    source.add { [weak target] value in target?.x = value }
}
