import Foundation
import TetherSQLite

/// A fresh database file in its own temporary directory, for one test. It records the SQL of
/// every statement its connection runs (`sqlite3_trace_v2`), so a test can assert, for example,
/// how many transactions ran. The directory is deleted when the fixture is freed.
///
/// ```swift
/// let db = try TestDatabase()
/// try db.connection.inTransaction { ... }
/// #expect(db.transactionCount == 1)
/// ```
final class TestDatabase {
    let directory: String
    let path: String
    private(set) var connection: Connection!
    private let log = StatementLog()

    init(options: Connection.Options = .init()) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-sqlite-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/test.sqlite"
        connection = try Connection(path: path, options: options)
        connection.trace { [log] in log.statements.append($0) }
    }

    deinit {
        connection = nil
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The SQL of every statement run since the fixture opened (or since `clearLog()`).
    var statements: [String] { log.statements }

    /// How many transactions began (`BEGIN …`).
    var transactionCount: Int { statements.filter { $0.hasPrefix("BEGIN") }.count }

    func clearLog() { log.statements.removeAll() }

    /// Another connection to the same file: "another program".
    func openAnother(options: Connection.Options = .init()) throws -> Connection {
        try Connection(path: path, options: options)
    }

    /// Closes the fixture's connection (the file stays).
    func close() { connection = nil }

    /// Opens the fixture's connection again.
    func reopen(options: Connection.Options = .init()) throws {
        connection = try Connection(path: path, options: options)
        connection.trace { [log] in log.statements.append($0) }
    }

    private final class StatementLog {
        var statements: [String] = []
    }
}

/// The package's root directory (this file is Tests/TetherSQLiteTests/Support/TestDatabase.swift).
let packageRoot: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .path

/// The schema/ folder.
let schemaDirectory = packageRoot + "/schema"

/// Collapses whitespace and drops `--` comments, so SQL can be compared regardless of layout.
func normalizedSQL(_ sql: String) -> String {
    var withoutComments = ""
    for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
        var text = Substring(line)
        if let comment = text.range(of: "--") { text = text[..<comment.lowerBound] }
        withoutComments += text + " "
    }
    var result = withoutComments.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    for punctuation in ["(", ")", ",", ";"] {
        result = result.replacingOccurrences(of: " \(punctuation)", with: punctuation)
            .replacingOccurrences(of: "\(punctuation) ", with: punctuation)
    }
    return result.trimmingCharacters(in: .whitespaces)
}
