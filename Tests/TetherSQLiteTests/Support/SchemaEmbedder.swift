import Foundation

/// Generates the embedded copies of schema/'s files: each file's name and its exact contents as
/// a Swift string literal. Tether's own files (`*_tether_*`) go into TetherSQLite
/// (`Sources/TetherSQLite/Migrations/EmbeddedSchema.swift`), the invoice sample's into the
/// sample (`Samples/InvoiceKit/InvoiceSchema.swift`): the library holds its own tables only.
///
/// Used by `EmbeddedSchemaTests`, which fails while a generated file and schema/ differ, and
/// rewrites them when run with `TETHER_REGENERATE_SCHEMA=1`.
enum SchemaEmbedder {
    static let generatedFile = packageRoot + "/Sources/TetherSQLite/Migrations/EmbeddedSchema.swift"
    static let sampleFile = packageRoot + "/Samples/InvoiceKit/InvoiceSchema.swift"
    static let regenerateCommand = "TETHER_REGENERATE_SCHEMA=1 swift test --filter EmbeddedSchemaTests"

    /// Whether a file of schema/ is Tether's own (the rest are the invoice sample's).
    static func isTethers(_ name: String) -> Bool { name.contains("_tether_") }

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

    /// The Swift source embedding Tether's own `files` in TetherSQLite.
    static func source(for files: [(name: String, sql: String)]) -> String {
        var text = header + """
            extension Migrator {
                /// Tether's own files of schema/ (`*_tether_*`), sorted by name: each name and its
                /// exact contents.
                static let embeddedSchema: [(name: String, sql: String)] = [

            """
        text += entries(files.filter { isTethers($0.name) }, indent: "        ")
        text += "    ]\n}\n"
        return text
    }

    /// The Swift source embedding the invoice sample's `files` in InvoiceKit.
    static func sampleSource(for files: [(name: String, sql: String)]) -> String {
        var text = header + """
            /// The invoice sample's files of schema/ (its tables, numbered between Tether's), sorted by
            /// name: each name and its exact contents (see `invoiceMigrator()`).
            let invoiceSchema: [(name: String, sql: String)] = [

            """
        text += entries(files.filter { !isTethers($0.name) }, indent: "    ")
        text += "]\n"
        return text
    }

    private static var header: String {
        """
        // GENERATED from the files in schema/ — do not edit.
        //
        // Change schema/ instead (add a new numbered file; never edit one that was applied), then run
        //     \(regenerateCommand)
        // EmbeddedSchemaTests fails while this file and schema/ differ.


        """
    }

    private static func entries(_ files: [(name: String, sql: String)], indent: String) -> String {
        var text = ""
        for file in files {
            text += indent + "(\n"
            text += indent + "    name: \(literal(file.name)),\n"
            text += indent + "    sql: \(literal(file.sql))\n"
            text += indent + "),\n"
        }
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
