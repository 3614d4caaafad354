// The hand-written baseline: callback code as a careful developer writes it without a
// reactive library. Plain Swift closures, no locks (single-threaded use), one closure per
// stage calling the next one, state in captured variables. Every pipeline is built by an
// `@inline(never)` function and stored in a class, so the optimizer sees the same opaque
// closures a real program would, and cannot fold the work away.

/// A hot source of Ints written by hand: a list of callbacks, each called for every value.
///
/// Concrete, not generic: a closure stored in a generic container (`[(T) -> Void]`) is kept
/// behind a reabstraction thunk, which costs an allocation per stored closure and an extra call
/// per value. Hand-written code is usually concrete, so the baseline does not pay for that.
final class Callbacks {
    private var observers: [(token: Int, callback: (Int) -> Void)] = []
    private var nextToken = 0

    init() {}

    /// Adds a callback; returns the token that removes it.
    @inline(never)
    func add(_ callback: @escaping (Int) -> Void) -> Int {
        let token = nextToken
        nextToken += 1
        observers.append((token, callback))
        return token
    }

    /// Removes a callback (tokens are increasing: binary search).
    @inline(never)
    func remove(_ token: Int) {
        var low = 0
        var high = observers.count
        while low < high {
            let mid = (low + high) / 2
            if observers[mid].token < token { low = mid + 1 } else { high = mid }
        }
        if low < observers.count, observers[low].token == token { observers.remove(at: low) }
    }

    func send(_ value: Int) {
        for observer in observers { observer.callback(value) }
    }
}

/// A hot source of hand-written sources (for W4), concrete for the same reason.
final class SourceCallbacks {
    private var observers: [(token: Int, callback: (Callbacks) -> Void)] = []
    private var nextToken = 0

    init() {}

    @inline(never)
    func add(_ callback: @escaping (Callbacks) -> Void) -> Int {
        let token = nextToken
        nextToken += 1
        observers.append((token, callback))
        return token
    }

    @inline(never)
    func remove(_ token: Int) {
        observers.removeAll { $0.token == token }
    }

    func send(_ value: Callbacks) {
        for observer in observers { observer.callback(value) }
    }
}

/// Subscribes `sink` directly (W1's reference row).
@inline(never)
func handSubscribe(_ source: Callbacks, sink: @escaping (Int) -> Void) -> Int {
    source.add(sink)
}

/// W1 by hand: map(x*2) -> filter -> scan(+) -> sink, one closure per stage.
@inline(never)
func handW1(source: Callbacks, sink: @escaping (Int) -> Void) -> Int {
    var total = 0
    let scan: (Int) -> Void = { value in
        total += value
        sink(total)
    }
    let filter: (Int) -> Void = { value in
        if value % 4 == 0 { scan(value) }
    }
    let map: (Int) -> Void = { value in filter(value * 2) }
    return source.add(map)
}

/// A cancellation token for hand-written cold producers.
final class HandCancel {
    var cancelled = false
    init() {}
    @inline(never) func cancel() { cancelled = true }
}

/// A hand-written cold producer of one value: calls `next` once, then `completed`, unless
/// cancelled; returns the token that cancels it.
typealias HandProducer = (_ next: @escaping (Int) -> Void, _ completed: @escaping () -> Void) -> HandCancel

@inline(never)
func handJust(_ value: Int) -> HandProducer {
    return { next, completed in
        let token = HandCancel()
        if !token.cancelled { next(value) }
        if !token.cancelled { completed() }
        return token
    }
}

/// W3 by hand: the latest value of three sources, summed once all three have one.
@inline(never)
func handCombineLatest3(
    _ a: Callbacks, _ b: Callbacks, _ c: Callbacks, sink: @escaping (Int) -> Void
) -> [Int] {
    var latestA: Int?
    var latestB: Int?
    var latestC: Int?
    let emit: () -> Void = {
        if let x = latestA, let y = latestB, let z = latestC { sink(x + y + z) }
    }
    return [
        a.add { latestA = $0; emit() },
        b.add { latestB = $0; emit() },
        c.add { latestC = $0; emit() },
    ]
}

/// W4 by hand: for each inner source that arrives, forward its values to the sink (and keep
/// the token, so the inner subscription could be cancelled).
@inline(never)
func handMerge(outer: SourceCallbacks, sink: @escaping (Int) -> Void) -> () -> Void {
    var inners: [(source: Callbacks, token: Int)] = []
    let token = outer.add { inner in
        inners.append((inner, inner.add(sink)))
    }
    return {
        for (source, token) in inners { source.remove(token) }
        inners.removeAll()
        outer.remove(token)
    }
}

/// W6/W7 by hand: map -> sink on a hand-written source.
@inline(never)
func handMapSubscribe(_ source: Callbacks, sink: @escaping (Int) -> Void) -> Int {
    let map: (Int) -> Void = { sink($0 * 2) }
    return source.add(map)
}
