import ArgumentParser
import Testing
@testable import InvoiceKit

@Suite("invoices: the command line and the terminal it needs")
struct OptionsTests {
    private let home = ["HOME": "/home/ada"]

    @Test func databaseFlagInBothSpellings() throws {
        #expect(try InvoicesOptions.parse(["--database", "/tmp/a.sqlite"]).databasePath(environment: home) == "/tmp/a.sqlite")
        #expect(try InvoicesOptions.parse(["--database=b.sqlite"]).databasePath(environment: [:]) == "b.sqlite")
        #expect(try InvoicesOptions.parse(["--database", "x", "--database", "y"]).database == "y", "the last one wins")
        #expect(try InvoicesOptions.parse([]).adopt == false)
        #expect(try InvoicesOptions.parse(["--adopt", "--database", "x"]).adopt == true)
    }

    @Test func helpListsTheOptionsAndTheKeys() {
        let help = InvoicesOptions.helpMessage(columns: 100)
        #expect(help.contains("USAGE: invoices [--database <path>] [--adopt]"))
        #expect(help.contains("--database <path>") && help.contains("--adopt") && help.contains("-h, --help"))
        #expect(help.contains("Ctrl-Z suspends"))
        // --help is an exit with the help, not an error.
        #expect(throws: (any Error).self) { try InvoicesOptions.parse(["--help"]) }
        #expect(InvoicesOptions.exitCode(for: CleanExit.helpRequest()) == .success)
    }

    @Test func mistakesAreExplained() {
        func message(_ arguments: [String]) -> String {
            do {
                _ = try InvoicesOptions.parse(arguments)
                return "parsed"
            } catch {
                return InvoicesOptions.message(for: error)
            }
        }
        #expect(message(["--database"]) == "Missing value for '--database <path>'")
        #expect(message(["--database="]) == "Missing value for '--database <path>'")
        #expect(message(["--database", ""]) == "--database needs a path")
        #expect(message(["--databse", "a"]).contains("Unknown option '--databse'"))
        #expect(message(["a.sqlite"]).contains("Unexpected argument 'a.sqlite'"))
    }

    @Test func theDefaultPathFollowsXDG() throws {
        #expect(try InvoicesOptions.parse([]).databasePath(environment: home) == "/home/ada/.local/share/tether/invoices.sqlite")
        #expect(InvoicesOptions.defaultDatabasePath(environment: ["XDG_DATA_HOME": "/data/", "HOME": "/home/ada"]) == "/data/tether/invoices.sqlite")
        #expect(InvoicesOptions.defaultDatabasePath(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/ada"]) == "/home/ada/.local/share/tether/invoices.sqlite",
                "a relative XDG_DATA_HOME is ignored")
        #expect(InvoicesOptions.defaultDatabasePath(environment: ["XDG_DATA_HOME": ""]) == nil)
        #expect(throws: InvoicesOptionsError.noDefaultDatabase) { try InvoicesOptions.parse([]).databasePath(environment: [:]) }
        #expect("\(InvoicesOptionsError.noDefaultDatabase)" == "neither XDG_DATA_HOME nor HOME is set: give the database with --database PATH")
    }

    @Test func theFormNeedsATerminalThatCanShowIt() {
        let fine = ["TERM": "xterm-256color", "LANG": "en_US.UTF-8"]
        #expect(terminalProblem(environment: fine, standardInputIsTerminal: true, standardOutputIsTerminal: true) == nil)
        #expect(terminalProblem(environment: ["TERM": "screen"], standardInputIsTerminal: true, standardOutputIsTerminal: true) == nil,
                "no locale set: taken as UTF-8")
        #expect(terminalProblem(environment: fine, standardInputIsTerminal: false, standardOutputIsTerminal: true)
                == "standard input is not a terminal: run invoices in a terminal")
        #expect(terminalProblem(environment: fine, standardInputIsTerminal: true, standardOutputIsTerminal: false)
                == "standard output is not a terminal: run invoices in a terminal, without redirecting its output")
        #expect(terminalProblem(environment: ["TERM": "dumb"], standardInputIsTerminal: true, standardOutputIsTerminal: true)?.hasPrefix("TERM=dumb cannot show the form") == true)
        #expect(terminalProblem(environment: [:], standardInputIsTerminal: true, standardOutputIsTerminal: true)?.hasPrefix("TERM=(unset) cannot show the form") == true)
        #expect(terminalProblem(environment: ["TERM": "xterm", "LANG": "C"], standardInputIsTerminal: true, standardOutputIsTerminal: true)?
                    .hasPrefix("the locale C is not UTF-8") == true)
        #expect(terminalProblem(environment: ["TERM": "xterm", "LANG": "C.UTF-8", "LC_ALL": "POSIX"], standardInputIsTerminal: true, standardOutputIsTerminal: true)?
                    .hasPrefix("the locale POSIX is not UTF-8") == true, "LC_ALL decides")
        #expect(terminalProblem(environment: ["TERM": "xterm", "LC_CTYPE": "de_DE.utf8", "LANG": "C"], standardInputIsTerminal: true, standardOutputIsTerminal: true) == nil,
                "LC_CTYPE before LANG")
    }
}
