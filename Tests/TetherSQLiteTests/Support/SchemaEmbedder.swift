import Foundation

/// Generates `Sources/TetherSQLite/Migrations/EmbeddedSchema.swift` from the files of schema/:
/// each file's name and its exact contents as a Swift string literal.
///
/// Used by `EmbeddedSchemaTests`, which fails while the generated file and schema/ differ, and
/// rewrites the file when run with `TETHER_REGENERATE_SCHEMA=1`.
enum SchemaEmbedder {
    static let generatedFile = packageRoot + "/Sources/TetherSQLite/Migrations/EmbeddedSchema.swift"
    static let regenerateCommand = "TETHER_REGENERATE_SCHEMA=1 swift test --filter EmbeddedSchemaTests"

    /// The `.sql` files of `directory`, sorted by name, with their exact contents.
    static func schemaFiles(in directory: String = schemaDirectory) throws -> [(name: String, sql: String)] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".sql") }
            .sorted()
            .map { name in
                let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
                guard let sql = String(validating: data, as: UTF8.self) else {
                    throw CocoaError(.fileReadInapplicableStringEncoding, userInfo: [NSFilePathErrorKey: name])
                }
                return (name, sql)
            }
    }

    /// The Swift source embedding `files`.
    static func source(for files: [(name: String, sql: String)]) -> String {
        var text = """
            // GENERATED from the files in schema/ — do not edit.
            //
            // Change schema/ instead (add a new numbered file; never edit one that was applied), then run
            //     \(regenerateCommand)
            // EmbeddedSchemaTests fails while this file and schema/ differ.

            extension Migrator {
                /// The files of schema/, sorted by name: each name and its exact contents.
                static let embeddedSchema: [(name: String, sql: String)] = [

            """
        for file in files {
            text += "        (\n"
            text += "            name: \(literal(file.name)),\n"
            text += "            sql: \(literal(file.sql))\n"
            text += "        ),\n"
        }
        text += "    ]\n}\n"
        return text
    }

    /// A Swift literal whose value is exactly `string`: a multi-line raw string when the text
    /// allows it (no carriage returns or other control characters besides tab and newline),
    /// else an escaped single-line literal.
    static func literal(_ string: String) -> String {
        let readable = string.unicodeScalars.allSatisfy { $0 == "\n" || $0 == "\t" || $0.value >= 0x20 && $0.value != 0x7F }
        guard readable, string.contains("\n") else { return escaped(string) }
        var hashes = "#"
        while string.contains("\"\"\"" + hashes) || string.contains("\\" + hashes) { hashes += "#" }
        // The content starts on the line after the opening delimiter and ends before the newline
        // that precedes the closing one (at column 0, so no indentation is stripped).
        return hashes + "\"\"\"\n" + string + "\n\"\"\"" + hashes
    }

    private static func escaped(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: text += "\\u{\(String(scalar.value, radix: 16))}"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
