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

/// One parsed input line: which field, and its new value.
struct Input: Sendable {
    let field: String
    let value: Decimal
}

enum InputError: Error, CustomStringConvertible {
    case malformed(String)
    var description: String {
        switch self {
        case .malformed(let line): return "cannot read \"\(line)\": expected a field (a, b or c) and a number, e.g. `a 3`"
        }
    }
}

/// A number as a person types it (`3`, `-1`, `4.5`, `.5`), as an exact decimal: no exponent,
/// `inf`, `nan` or hexadecimal, and at most 38 digits (what `Decimal` holds exactly).
func decimal(_ text: String) -> Decimal? {
    var digits = Substring(text)
    if digits.first == "+" || digits.first == "-" { digits = digits.dropFirst() }
    let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), parts.contains(where: { !$0.isEmpty }),
          parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }), digits.filter(\.isNumber).count <= 38
    else { return nil }
    return Decimal(string: text.hasPrefix("+") ? String(text.dropFirst()) : text, locale: Locale(identifier: "en_US_POSIX"))
}

func parse(_ line: String) -> Result<Input, InputError> {
    let parts = line.split(whereSeparator: { $0 == " " || $0 == "=" || $0 == "\t" }).map(String.init)
    guard parts.count == 2, ["a", "b", "c"].contains(parts[0]), let value = decimal(parts[1]) else {
        return .failure(.malformed(line))
    }
    return .success(Input(field: parts[0], value: value))
}

print("y = a + b + c. Type `a 3`, `b 4`, `c 5` (Ctrl-D to quit).")

// The lines typed, as a hot signal. Parsing is shared: without `share()`, each of the six
// subscribers below would parse (and report a bad line) on its own, the classic cold-signal
// surprise.
let lines = Subject<String, Never>()
let inputs = lines.signal.compactMap { line -> Input? in
    switch parse(line) {
    case .success(let input): return input
    case .failure(let error):
        print("  ! \(error)")
        return nil
    }
}.share()
func field(_ name: String) -> Signal<Decimal, Never> {
    inputs.filter { $0.field == name }.map(\.value)
}

let model = Sum()
observe(model, \.sum).subscribe(next: { print("model:          y = \($0)") })
model.a = 3
model.b = 4
