import Foundation
import Testing
@testable import TetherSQLite

/// schema/ is read by the code through `EmbeddedSchema.swift`, generated from it. These tests
/// prove the two are identical, byte for byte.
@Suite("Embedded schema")
struct EmbeddedSchemaTests {
    @Test(arguments: [true, false])
    func generatedFilesMatchSchemaFolder(tethers: Bool) throws {
        let files = try SchemaEmbedder.schemaFiles()
        let (path, expected) = tethers
            ? (SchemaEmbedder.generatedFile, SchemaEmbedder.source(for: files))
            : (SchemaEmbedder.sampleFile, SchemaEmbedder.sampleSource(for: files))
        let current = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        if current != expected, ProcessInfo.processInfo.environment["TETHER_REGENERATE_SCHEMA"] == "1" {
            try expected.write(toFile: path, atomically: true, encoding: .utf8)
            Issue.record("Regenerated \(path); build and test again.")
            return
        }
        #expect(Array(current.utf8) == Array(expected.utf8), "\(path) is out of date with schema/; run: \(SchemaEmbedder.regenerateCommand)")
    }

    /// The library embeds Tether's own tables only (the sample's go with the sample), byte for
    /// byte as schema/ holds them.
    @Test func builtInMigrationsAreTethersSchemaFilesByteForByte() throws {
        let files = try SchemaEmbedder.schemaFiles().filter { SchemaEmbedder.isTethers($0.name) }
        let builtIn = try Migrator.builtIn().migrations
        #expect(builtIn.map(\.name) == files.map(\.name))
        for (migration, file) in zip(builtIn, files) {
            #expect(Array(migration.sql.utf8) == Array(file.sql.utf8), "\(migration.name) differs from schema/\(file.name)")
        }
        let folder = try Migrator(directory: schemaDirectory).migrations.filter { SchemaEmbedder.isTethers($0.name) }
        #expect(folder.map(\.checksum) == builtIn.map(\.checksum))
        #expect(builtIn.map(\.name) == ["001_tether_metadata.sql", "002_tether_changes.sql", "004_tether_change_ranges.sql"])
    }

    @Test func literalsReproduceTrickyTextExactly() {
        // The generator's literals, checked against the text they should denote.
        #expect(SchemaEmbedder.literal("a\nb") == "#\"\"\"\na\nb\n\"\"\"#")
        #expect(SchemaEmbedder.literal("a\n") == "#\"\"\"\na\n\n\"\"\"#")
        #expect(SchemaEmbedder.literal("x \"\"\"# y\n") == "##\"\"\"\nx \"\"\"# y\n\n\"\"\"##")
        #expect(SchemaEmbedder.literal("a\\#(b)\n").hasPrefix("##\"\"\""))
        #expect(SchemaEmbedder.literal("crlf\r\n") == "\"crlf\\r\\n\"")
        #expect(SchemaEmbedder.literal("one line") == "\"one line\"")
        #expect(SchemaEmbedder.literal("q\"\\\u{1}") == "\"q\\\"\\\\\\u{1}\"")
    }
}
