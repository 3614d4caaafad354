import CSQLite
import Testing

@Test func sqliteLinks() {
    #expect(sqlite3_libversion_number() >= 3_040_000)
}
