import TetherSQLite

/// Whether the form's edits are in the database, in words a person understands: shown on the
/// title row for as long as it holds (not a message the next key wipes).
///
/// - `saved`: nothing waits to be written.
/// - `saving`: edits wait for the end of the turn, or for a retry.
/// - `notSaved(reason)`: the last write failed and the edits are still waiting; the reason
///   says why (the file is read-only, the disk is full, another program holds the lock...),
///   without SQL. It stays until a write of this program succeeds with nothing left waiting.
///
/// ```swift
/// SaveState.notSaved(because: .readOnly(path: "a.sqlite")).text   // "Not saved: the file is opened read-only"
/// ```
public enum SaveState: Equatable, Sendable {
    case saved
    case saving
    case notSaved(String)

    /// The state after `error` was reported while edits wait: `notSaved`, in words.
    public static func notSaved(because error: StoreError) -> SaveState {
        .notSaved(reason(for: error))
    }

    /// What the title row shows.
    public var text: String {
        switch self {
        case .saved: "Saved"
        case .saving: "Saving…"
        case .notSaved(let reason): "Not saved: \(reason)"
        }
    }

    /// Why a write failed, for a person: what happened and what the app does about it.
    ///
    /// ```swift
    /// SaveState.reason(for: .fileLost(path: "a.sqlite"))
    /// // "the file was deleted or replaced (edits are kept until the app quits)"
    /// ```
    public static func reason(for error: StoreError) -> String {
        switch error {
        case .sqlite(let sqlite):
            if sqlite.isBusy { return "another program is writing to the file (trying again)" }
            if sqlite.isReadOnly { return "the file cannot be written (read-only; trying again)" }
            if sqlite.isFull { return "the disk is full (trying again)" }
            if sqlite.code.primary == .mismatch { return "a value of the wrong type (\(sqlite.message)); see the log" }
            return "the database refused the write (\(sqlite.code.primary)); see the log"
        case .readOnly: return "the file is opened read-only"
        case .closed: return "the database is closed"
        case .fileLost: return "the file was deleted or replaced (edits are kept until the app quits)"
        case .deleted(let model, let id): return "\(model) \(id) was deleted by another program"
        case .invalid(let invalid):
            let rules = invalid.failures.map { $0.rule }.joined(separator: "; ")
            return "\(invalid.model == "InvoiceLine" ? "a line" : "the \(invalid.model.lowercased())"): \(rules)"
        case .notStored, .mapping, .migration, .deleteDenied: return "\(error)"
        }
    }
}
