import ArgumentParser

/// The `invoices` command line (swift-argument-parser: `--help`, errors and shell completion
/// behave as in every Swift command-line tool):
///
/// ```
/// invoices [--database PATH] [--adopt]
/// invoices --help
/// ```
///
/// Without `--database`, the database is `$XDG_DATA_HOME/tether/invoices.sqlite`, or
/// `~/.local/share/tether/invoices.sqlite` when `XDG_DATA_HOME` is not set (the XDG base
/// directory rule: a relative `XDG_DATA_HOME` is ignored).
///
/// ```swift
/// let options = try InvoicesOptions.parse(["--database", "/tmp/a.sqlite"])
/// try options.databasePath(environment: [:])   // "/tmp/a.sqlite"
/// ```
public struct InvoicesOptions: ParsableCommand, Sendable {
    public static let configuration = CommandConfiguration(
        commandName: "invoices",
        abstract: "An invoice form in the terminal, kept in an SQLite file: every edit is saved at once.",
        discussion: """
            A new file gets a few example invoices. A file written by an earlier version (one \
            quantity and unit price per invoice) is converted when opened. A file with tables \
            of another program is left alone unless --adopt is given.

            Keys: Tab/Shift-Tab/Up/Down move, Enter confirms, Esc reverts the field, Ctrl-L adds \
            a line, Ctrl-K deletes one, Ctrl-N adds an invoice, Ctrl-D deletes it, Ctrl-Z \
            suspends, Ctrl-C (or q while the list has the focus) quits.
            """)

    /// The SQLite file the invoices are kept in (created if missing).
    @Option(name: .long, help: ArgumentHelp(
        "The SQLite file (created if missing). Default: $XDG_DATA_HOME/tether/invoices.sqlite, or ~/.local/share/tether/invoices.sqlite without XDG_DATA_HOME.",
        valueName: "path"))
    public var database: String?

    /// Add the invoice tables to a file that has tables of another program.
    @Flag(name: .long, help: "Add the invoice tables to a database that has tables of another program (without this, such a file is refused and left unchanged).")
    public var adopt = false

    /// Options with the defaults (`ParsableCommand` needs it).
    public init() {}

    public func validate() throws {
        if let database, database.isEmpty { throw ValidationError("--database needs a path") }
    }

    /// The database file: `--database`, or the default for `environment` (its
    /// `XDG_DATA_HOME` and `HOME`).
    ///
    /// ```swift
    /// try InvoicesOptions.parse([]).databasePath(environment: ["HOME": "/home/ada"])
    /// // "/home/ada/.local/share/tether/invoices.sqlite"
    /// ```
    public func databasePath(environment: [String: String]) throws(InvoicesOptionsError) -> String {
        if let database { return database }
        guard let path = Self.defaultDatabasePath(environment: environment) else { throw .noDefaultDatabase }
        return path
    }

    /// The default database file for `environment`, or nil if neither `XDG_DATA_HOME` (an
    /// absolute path) nor `HOME` is set.
    ///
    /// ```swift
    /// InvoicesOptions.defaultDatabasePath(environment: ["HOME": "/home/ada"])
    /// // "/home/ada/.local/share/tether/invoices.sqlite"
    /// ```
    public static func defaultDatabasePath(environment: [String: String]) -> String? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return join(data, "tether/invoices.sqlite")
        }
        if let home = environment["HOME"], !home.isEmpty {
            return join(home, ".local/share/tether/invoices.sqlite")
        }
        return nil
    }

    private static func join(_ directory: String, _ rest: String) -> String {
        directory.hasSuffix("/") ? directory + rest : directory + "/" + rest
    }
}

/// Why the command line gives no database.
public enum InvoicesOptionsError: Error, Equatable, CustomStringConvertible {
    /// No `--database`, and neither `XDG_DATA_HOME` nor `HOME` to put the default under.
    case noDefaultDatabase

    public var description: String {
        switch self {
        case .noDefaultDatabase: return "neither XDG_DATA_HOME nor HOME is set: give the database with --database PATH"
        }
    }
}
