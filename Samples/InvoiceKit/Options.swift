/// The `invoices` command line, parsed by hand (no argument-parsing dependency):
///
/// ```
/// invoices [--database PATH]
/// invoices --help
/// ```
///
/// Without `--database`, the database is `$XDG_DATA_HOME/tether/invoices.sqlite`, or
/// `~/.local/share/tether/invoices.sqlite` when `XDG_DATA_HOME` is not set (the XDG base
/// directory rule: a relative `XDG_DATA_HOME` is ignored).
///
/// ```swift
/// switch InvoicesOptions.parse(["--database", "/tmp/a.sqlite"], environment: [:]) {
/// case .run(let options): print(options.databasePath)   // /tmp/a.sqlite
/// case .help: print(InvoicesOptions.usage)
/// case .failure(let message): print(message)
/// }
/// ```
public struct InvoicesOptions: Hashable, Sendable {
    /// The SQLite file the invoices are kept in (created if missing).
    public var databasePath: String

    /// Creates options.
    public init(databasePath: String) {
        self.databasePath = databasePath
    }

    /// What the command line asks for.
    public enum Parsed: Hashable, Sendable {
        /// Run the form with these options.
        case run(InvoicesOptions)
        /// Print the usage and exit.
        case help
        /// The command line is wrong: print this message and the usage, and exit with status 2.
        case failure(String)
    }

    /// The usage text `--help` prints.
    public static let usage = """
        usage: invoices [--database PATH]

        An invoice form in the terminal, kept in an SQLite file: every edit is saved at once.

          --database PATH   the SQLite file (created if missing; a new one gets a few example
                            invoices). Default: $XDG_DATA_HOME/tether/invoices.sqlite, or
                            ~/.local/share/tether/invoices.sqlite without XDG_DATA_HOME
          -h, --help        show this help

        Keys: Tab/Shift-Tab/Up/Down move, Enter confirms, Esc reverts the field, Ctrl-N adds an
        invoice, Ctrl-D deletes it, Ctrl-C (or q while the list has the focus) quits.
        """

    /// Parses the arguments (without the program's name); `environment` supplies the default
    /// path's `XDG_DATA_HOME` and `HOME`.
    public static func parse(_ arguments: [String], environment: [String: String]) -> Parsed {
        var databasePath: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help":
                return .help
            case "--database":
                guard index + 1 < arguments.count, !arguments[index + 1].isEmpty else {
                    return .failure("--database needs a path")
                }
                databasePath = arguments[index + 1]
                index += 1
            default:
                if argument.hasPrefix("--database=") {
                    let path = String(argument.dropFirst("--database=".count))
                    guard !path.isEmpty else { return .failure("--database needs a path") }
                    databasePath = path
                } else {
                    return .failure("unknown argument: \(argument)")
                }
            }
            index += 1
        }
        if let databasePath { return .run(InvoicesOptions(databasePath: databasePath)) }
        guard let path = defaultDatabasePath(environment: environment) else {
            return .failure("neither XDG_DATA_HOME nor HOME is set: give the database with --database PATH")
        }
        return .run(InvoicesOptions(databasePath: path))
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
