/// Why the invoice form cannot run in this terminal, or nil if it can: standard input and
/// output must be a terminal, `TERM` must name one that moves the cursor (not `dumb`), and a
/// locale set explicitly must be UTF-8 (the form shows Chinese names, box lines and "…"). No
/// locale at all is taken as UTF-8, as terminals are today.
///
/// ```swift
/// terminalProblem(environment: ["TERM": "dumb"], standardInputIsTerminal: true, standardOutputIsTerminal: true)
/// // "TERM=dumb cannot show the form (it needs a terminal that moves the cursor, such as xterm): run invoices in another terminal"
/// ```
public func terminalProblem(environment: [String: String], standardInputIsTerminal: Bool, standardOutputIsTerminal: Bool) -> String? {
    guard standardInputIsTerminal else { return "standard input is not a terminal: run invoices in a terminal" }
    guard standardOutputIsTerminal else { return "standard output is not a terminal: run invoices in a terminal, without redirecting its output" }
    let term = environment["TERM"] ?? ""
    if term.isEmpty || term == "dumb" {
        return "TERM=\(term.isEmpty ? "(unset)" : term) cannot show the form (it needs a terminal that moves the cursor, such as xterm): run invoices in another terminal"
    }
    // The locale that decides the character set: LC_ALL, else LC_CTYPE, else LANG.
    let locale = [environment["LC_ALL"], environment["LC_CTYPE"], environment["LANG"]].lazy.compactMap { $0 }.first { !$0.isEmpty }
    if let locale {
        let folded = locale.lowercased()
        if !folded.contains("utf-8") && !folded.contains("utf8") {
            return "the locale \(locale) is not UTF-8, which the form needs (names in any script, box lines): set LANG=C.UTF-8 (or another UTF-8 locale) and run invoices again"
        }
    }
    return nil
}
