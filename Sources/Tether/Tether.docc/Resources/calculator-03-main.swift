// The seeds' `y = a + b + c` form, fed from standard input, done two ways side by side:
//
// 1. The Tether way: a `@Model` with three tracked fields and a computed `sum`; the input
//    lines are bound to the fields, and `observe(model, \.sum)` prints each new sum. No
//    combineLatest: the computed property's dependencies are tracked automatically.
// 2. The ReactiveCocoa way: three subjects, `distinctUntilChanged`, and
//    `combineLatest(a, b, c, reduce: +)`.
//
// Type lines such as `a 3`, `b 4.5`, `c -1` (or `a=3`); a malformed number is reported and
// changes nothing. End with Ctrl-D.

import Foundation
import Tether

@Model
final class Sum {
    var a: Decimal = 0
    var b: Decimal = 0
    var c: Decimal = 0
    var sum: Decimal { a + b + c }
}

print("y = a + b + c. Type `a 3`, `b 4`, `c 5` (Ctrl-D to quit).")
