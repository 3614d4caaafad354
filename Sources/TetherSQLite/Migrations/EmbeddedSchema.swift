extension Migrator {
    static let embeddedSchema: [(name: String, sql: String)] = []
}
