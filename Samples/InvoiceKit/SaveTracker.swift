import Logging
import TetherSQLite
import TetherTerminal

/// Whether the form's edits are in the file (the title row's `SaveState`), why not when they
/// are not, and the question quitting asks when something would be lost: the store's errors
/// and commits come here, and so does every quit.
///
/// ```swift
/// let saving = SaveTracker(store: store, status: status) { terminal.setNeedsDisplay() }
/// if saving.quit(invalidFields: []) { return .quit }   // else it asks: the next key answers
/// ```
@MainActor
final class SaveTracker {
    /// Whether the last quit asked (the next key answers).
    private(set) var isAskingToQuit = false
    /// What quitting would lose, as the question said it (shown over the form while it waits).
    private(set) var unsavedAtQuit: [String] = []
    /// Whether the user chose to quit although changes were not saved (they were told which):
    /// the store is then closed without trying them again (`Store.closeDiscardingChanges`).
    private(set) var quitsWithoutSaving = false

    private let store: Store
    /// Where a failure that is not shown on the title row is said, and the question asked.
    private let status: StatusLine
    private let needsDisplay: @Sendable () -> Void
    /// Why nothing can be written to the file any more (it was deleted or replaced), from the
    /// moment the store says so, whether or not edits wait: shown until the app quits.
    private var fileProblem: String?
    /// Why the last write failed, while edits still wait; nil once a write succeeded with
    /// nothing left waiting.
    private var failure: String?
    private static let logger = Logger(label: "invoices")

    /// Tracks the writes of `store`; a failure that is not about saving (a read) is said on
    /// `status`, and so is the question quitting asks.
    init(store: Store, status: StatusLine, needsDisplay: @escaping @Sendable () -> Void) {
        self.store = store
        self.status = status
        self.needsDisplay = needsDisplay
    }

    /// Whether the edits are in the database.
    var state: SaveState {
        if let fileProblem { return .notSaved(fileProblem) }
        if let failure { return .notSaved(failure) }
        return store.pendingRowCount > 0 ? .saving : .saved
    }

    /// A write the store could not make, or a read that failed. The whole error (its SQL
    /// included) goes to the log; the form says it in words: on the title row while edits wait
    /// (a line that breaks its rules is shown beside the lines too), else on the status line.
    func storeFailed(_ error: StoreError) {
        Self.logger.error("\(error)")
        if case .fileLost = error {
            // Nothing typed from now on reaches a file: the title row says so at once.
            fileProblem = SaveState.reason(for: error)
            needsDisplay()
            return
        }
        if store.pendingRowCount > 0 {
            failure = SaveState.reason(for: error)
            needsDisplay()
        } else {
            // Nothing waits: a change dropped (not saved), or a read that failed (a change
            // made elsewhere, or an invoice's lines), which is not about saving at all.
            switch error {
            case .deleted, .invalid, .closed, .readOnly, .fileLost:
                status.setMessage("Not saved: \(SaveState.reason(for: error))")
            default:
                status.setMessage("Could not read from the database: \(SaveState.reason(for: error))")
            }
            needsDisplay()
        }
    }

    /// A write of this program committed: with nothing left waiting, the failure is over.
    func savedLocally() {
        // The title row said "Saving…" (or why not): it says "Saved" now if nothing waits.
        needsDisplay()
        guard failure != nil, store.pendingRowCount == 0 else { return }
        failure = nil
    }

    /// What quitting now would lose, in words: `invalidFields` (the fields whose text is not
    /// valid), then each invoice, line or customer whose changes are not in the file after one
    /// more try to write them, with the reason.
    func unsaved(invalidFields: [String]) -> [String] {
        var unsaved = invalidFields
        if store.pendingRowCount > 0, !store.isClosed {
            do { try store.flush() } catch { storeFailed(error) }
        }
        var notWritten: [String] = []
        for model in store.pendingModels {
            switch model {
            case let line as InvoiceLine:
                let place = Self.describe(line)
                if let broken = line.brokenRules.first {
                    unsaved.append("\(place) (\(InvoiceLineRow.fieldName(broken.property)): \(broken.rule))")
                } else {
                    notWritten.append(place)
                }
            case let invoice as Invoice: notWritten.append("invoice #\(invoice.number)")
            case let customer as Customer: notWritten.append("customer \(customer.name)")
            default: notWritten.append("a change")
            }
        }
        if !notWritten.isEmpty {
            let reason = fileProblem ?? failure ?? "not written yet"
            unsaved.append("\(notWritten.joined(separator: ", ")) (\(reason))")
        }
        return unsaved
    }

    /// `line 2 of invoice #1`.
    private static func describe(_ line: InvoiceLine) -> String {
        guard let invoice = line.invoice else { return "a line" }
        let index = invoice.lines.firstIndex { $0 === line }.map { "\($0 + 1)" } ?? "?"
        return "line \(index) of invoice #\(invoice.number)"
    }

    /// The user asked to quit: true when nothing would be lost (see `unsaved(invalidFields:)`).
    /// Else it says what, in words, on the status line and over the form, and asks: the next
    /// key goes to `answer(_:)`.
    func quit(invalidFields: [String]) -> Bool {
        let unsaved = unsaved(invalidFields: invalidFields)
        guard !unsaved.isEmpty else { return true }
        isAskingToQuit = true
        unsavedAtQuit = unsaved
        status.setMessage("Not saved: \(unsaved.joined(separator: "; ")). Ctrl-C again quits, another key goes back.")
        needsDisplay()
        return false
    }

    /// The key after the question: Ctrl-C or q again quits (true, and nothing is tried again);
    /// any other key goes back to the form, and does nothing else (it answered).
    func answer(_ key: Key) -> Bool {
        isAskingToQuit = false
        unsavedAtQuit = []
        status.setMessage(nil)
        guard key == .control("c") || key == .character("q") else { return false }
        quitsWithoutSaving = true
        return true
    }
}
