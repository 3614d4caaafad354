import Foundation
import Testing

/// The package's root directory (this file is Tests/TetherTests/DocumentationTests.swift).
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

private func read(_ path: String) throws -> String {
    try String(contentsOfFile: root + "/" + path, encoding: .utf8)
}

/// The relative link targets of a Markdown file: `[text](target)`, without a scheme or an anchor.
private func relativeLinks(in markdown: String) -> [String] {
    let pattern = /\]\(([^)\s]+)\)/
    return markdown.matches(of: pattern).map { String($0.output.1) }
        .filter { !$0.contains("://") && !$0.hasPrefix("#") && !$0.hasPrefix("mailto:") }
        .map { $0.split(separator: "#", maxSplits: 1).first.map(String.init) ?? $0 }
}

@Suite("Documentation: the catalogs, the tutorial and the links to them")
struct DocumentationTests {
    static let tutorial = "Sources/Tether/Tether.docc/Tutorials/BuildingTheCalculator.tutorial"
    static let resources = "Sources/Tether/Tether.docc/Resources"

    @Test func theTutorialsLastStepIsTheCalculatorSample() throws {
        let text = try read(Self.tutorial)
        let files = text.matches(of: /@Code\(name: "[^"]*", file: "([^"]+)"\)/).map { String($0.output.1) }
        let swiftSteps = files.filter { $0.hasSuffix("-main.swift") }
        #expect(swiftSteps == swiftSteps.sorted(), "steps in order")
        let last = try #require(swiftSteps.last)
        #expect(try read(Self.resources + "/" + last) == read("Samples/Calculator/main.swift"),
                "\(last) must be Samples/Calculator/main.swift: change both together")
    }

    @Test func everyFileTheTutorialsNameExistsAndEveryResourceIsUsed() throws {
        let tutorials = try ["TetherTutorials.tutorial", "BuildingTheCalculator.tutorial"]
            .map { try read("Sources/Tether/Tether.docc/Tutorials/" + $0) }.joined()
        let named = Set(tutorials.matches(of: /(?:file|source): "([^"]+)"/).map { String($0.output.1) })
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: root + "/" + Self.resources))
        #expect(named == present)
    }

    @Test func theReadmesAndTheArticlesLocalLinksResolve() throws {
        let documents = [
            "README.md",
            "docs/PERFORMANCE.md",
            "Sources/TetherSignals/TetherSignals.docc/Signals.md",
            "Sources/Tether/Tether.docc/Models.md",
            "Sources/TetherSQLite/TetherSQLite.docc/Persistence.md",
            "Sources/TetherSQLite/TetherSQLite.docc/SQLite.md",
            "Sources/TetherTerminal/TetherTerminal.docc/TerminalToolkit.md",
        ]
        for document in documents {
            let folder = URL(fileURLWithPath: root + "/" + document).deletingLastPathComponent()
            for link in relativeLinks(in: try read(document)) {
                let target = folder.appendingPathComponent(link).standardizedFileURL.path
                #expect(FileManager.default.fileExists(atPath: target), "\(document) links to \(link), which does not exist")
            }
        }
    }

    @Test func noDocumentPointsAtTheArticlesOldPlaces() throws {
        let moved = ["docs/SIGNALS.md", "docs/MODELS.md", "docs/PERSISTENCE.md", "docs/SQLITE.md", "docs/TERMINAL.md"]
        for path in moved {
            #expect(!FileManager.default.fileExists(atPath: root + "/" + path), "\(path) lives in a DocC catalog now")
        }
        let readme = try read("README.md")
        for path in moved { #expect(!readme.contains(path)) }
    }
}
