import Testing
@testable import InvoiceKit

@Suite("invoices: the command line")
struct OptionsTests {
    private let home = ["HOME": "/home/ada"]

    @Test func databaseFlagInBothSpellings() {
        #expect(InvoicesOptions.parse(["--database", "/tmp/a.sqlite"], environment: home) == .run(InvoicesOptions(databasePath: "/tmp/a.sqlite")))
        #expect(InvoicesOptions.parse(["--database=b.sqlite"], environment: [:]) == .run(InvoicesOptions(databasePath: "b.sqlite")))
        #expect(InvoicesOptions.parse(["--database", "x", "--database", "y"], environment: [:]) == .run(InvoicesOptions(databasePath: "y")), "the last one wins")
    }

    @Test func helpWinsOverEverythingAfterAValidStart() {
        #expect(InvoicesOptions.parse(["--help"], environment: [:]) == .help)
        #expect(InvoicesOptions.parse(["-h"], environment: [:]) == .help)
        #expect(InvoicesOptions.parse(["--database", "a", "--help"], environment: [:]) == .help)
        #expect(InvoicesOptions.usage.hasPrefix("usage: invoices [--database PATH]"))
    }

    @Test func mistakesAreExplained() {
        #expect(InvoicesOptions.parse(["--database"], environment: home) == .failure("--database needs a path"))
        #expect(InvoicesOptions.parse(["--database="], environment: home) == .failure("--database needs a path"))
        #expect(InvoicesOptions.parse(["--database", ""], environment: home) == .failure("--database needs a path"))
        #expect(InvoicesOptions.parse(["--databse", "a"], environment: home) == .failure("unknown argument: --databse"))
        #expect(InvoicesOptions.parse(["a.sqlite"], environment: home) == .failure("unknown argument: a.sqlite"))
    }

    @Test func theDefaultPathFollowsXDG() {
        #expect(InvoicesOptions.parse([], environment: home) == .run(InvoicesOptions(databasePath: "/home/ada/.local/share/tether/invoices.sqlite")))
        #expect(InvoicesOptions.defaultDatabasePath(environment: ["XDG_DATA_HOME": "/data/", "HOME": "/home/ada"]) == "/data/tether/invoices.sqlite")
        #expect(InvoicesOptions.defaultDatabasePath(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/ada"]) == "/home/ada/.local/share/tether/invoices.sqlite",
                "a relative XDG_DATA_HOME is ignored")
        #expect(InvoicesOptions.defaultDatabasePath(environment: ["XDG_DATA_HOME": ""]) == nil)
        #expect(InvoicesOptions.parse([], environment: [:]) == .failure("neither XDG_DATA_HOME nor HOME is set: give the database with --database PATH"))
    }
}
