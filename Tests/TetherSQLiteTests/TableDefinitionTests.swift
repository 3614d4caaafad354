import Foundation
import InvoiceKit
import Testing
import TetherSQLite

/// The sample's invoice (Samples/InvoiceKit), whose table schema/003_invoice.sql and
/// schema/005_invoice_lines.sql describe.
/// (`Invoice` alone is the smaller test model of Support/Models.swift.)
private typealias SampleInvoice = InvoiceKit.Invoice
private typealias Customer = InvoiceKit.Customer
private typealias InvoiceLine = InvoiceKit.InvoiceLine

@Suite("Table definitions")
struct TableDefinitionTests {
    // MARK: The issue's test: generated tables match schema/

    @Test func theSamplesTablesAreTheOnesTheSchemaFilesMake() throws {
        // schema/003_invoice.sql is the Invoice table of the sample's first version (one line
        // per invoice); schema/005_invoice_lines.sql makes the rest, each statement the one the
        // mapping generates for the sample's models.
        let file = normalizedSQL(try String(contentsOfFile: schemaDirectory + "/005_invoice_lines.sql", encoding: .utf8))
        let first = try TestDatabase()
        try first.connection.execute(try String(contentsOfFile: schemaDirectory + "/003_invoice.sql", encoding: .utf8))
        let invoice = try TableDefinition(for: SampleInvoice.self, defaultsFrom: SampleInvoice())
        let added = try invoice.migrationStatements(existing: first.connection.columns(in: "Invoice"))
        #expect(added == [
            "ALTER TABLE Invoice ADD COLUMN customer_id INTEGER REFERENCES Customer(id) ON DELETE RESTRICT",
            "CREATE INDEX IF NOT EXISTS Invoice_customer_id ON Invoice(customer_id)",
        ])
        let customer = try TableDefinition(for: Customer.self, defaultsFrom: Customer())
        let line = try TableDefinition(for: InvoiceLine.self, defaultsFrom: InvoiceLine())
        let generated = try customer.migrationStatements(existing: []) + line.migrationStatements(existing: []) + added
        for statement in generated {
            #expect(file.contains(normalizedSQL(statement.hasSuffix(";") ? statement : statement + ";")), "schema/005_invoice_lines.sql lacks \(statement)")
        }
        #expect(line.createTableSQL == """
            CREATE TABLE InvoiceLine (
                id INTEGER PRIMARY KEY,
                invoice_id INTEGER REFERENCES Invoice(id) ON DELETE CASCADE,
                position INTEGER NOT NULL DEFAULT 0,
                text TEXT NOT NULL DEFAULT '',
                quantity INTEGER NOT NULL DEFAULT 1,
                unitPrice REAL NOT NULL DEFAULT 0
            );
            """)
    }

    @Test func theSamplesTablesFromTheMigrationsNeedNoChanges() throws {
        // The tables the migrations create are, column for column, what the mapping expects
        // (Invoice keeps the first version's columns: their data stays).
        let migrated = try TestDatabase()
        try Migrator(directory: schemaDirectory).migrate(migrated.connection)
        let invoice = try TableDefinition(for: SampleInvoice.self, defaultsFrom: SampleInvoice())
        let customer = try TableDefinition(for: Customer.self, defaultsFrom: Customer())
        let line = try TableDefinition(for: InvoiceLine.self, defaultsFrom: InvoiceLine())
        for table in [invoice, customer, line] {
            #expect(try table.migrationStatements(existing: migrated.connection.columns(in: table.tableName)).isEmpty, "\(table.tableName)")
        }
        for table in [customer, line] {
            let generated = try TestDatabase()
            try table.createOrUpdate(in: generated.connection)
            #expect(try migrated.connection.columns(in: table.tableName) == generated.connection.columns(in: table.tableName))
        }
        #expect(try migrated.connection.columns(in: "Invoice").map(\.name) == [
            "id", "number", "customer", "note", "quantity", "unitPrice", "discount", "tax", "customer_id",
        ])
    }

    @Test func columnsFollowDeclarationOrderAndSkipTransientProperties() throws {
        let table = try TableDefinition(for: Invoice.self)
        #expect(table.tableName == "Invoice")
        #expect(table.columns.map(\.name) == ["customer", "quantity", "unitPrice", "discount"])
        #expect(table.columns.map(\.propertyIndex) == [0, 1, 2, 3])
        #expect(table.columns.map(\.type) == [.text, .integer, .real, .real])
        #expect(table.columns.map(\.isNullable) == [false, false, false, true])
        // Without a prototype, NOT NULL columns default to the zero of their storage.
        #expect(table.columns.map(\.defaultValue) == ["", 0, .real(0), nil])
    }

    // MARK: Supported types

    @Test func everyKindOfSupportedType() throws {
        let table = try TableDefinition(for: Shipment.self, defaultsFrom: Shipment())
        #expect(table.createTableSQL == """
            CREATE TABLE Shipment (
                id INTEGER PRIMARY KEY,
                status TEXT NOT NULL DEFAULT 'draft',
                priority INTEGER,
                address TEXT NOT NULL DEFAULT '{"city":"Springfield","street":"1 Main St"}',
                tags TEXT NOT NULL DEFAULT '[]',
                trackingID TEXT,
                shippedAt REAL,
                weight REAL NOT NULL DEFAULT 0,
                express INTEGER NOT NULL DEFAULT 0,
                label BLOB NOT NULL DEFAULT X'',
                "order" INTEGER NOT NULL DEFAULT 0,
                smallCount INTEGER NOT NULL DEFAULT 0
            );
            """)
        let db = try TestDatabase()
        try table.createOrUpdate(in: db.connection)
        #expect(try db.connection.columns(in: "Shipment").count == 12)
    }

    @Test func valuesRoundTripThroughTheColumns() throws {
        let table = try TableDefinition(for: Shipment.self)
        let shipment = Shipment()
        shipment.status = .delivered
        shipment.priority = .high
        shipment.address = Address(street: "2 Side St", city: "Shelbyville")
        shipment.tags = ["fragile", "a/b"]
        shipment.trackingID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        shipment.shippedAt = Date(timeIntervalSince1970: 1_700_000_000.5)
        shipment.weight = 2.5
        shipment.express = true
        shipment.label = Data([1, 2, 3])
        shipment.order = 7
        shipment.smallCount = -3

        let db = try TestDatabase()
        try table.createOrUpdate(in: db.connection)
        let schema = Shipment._$schema
        let values = try table.columns.map { column in
            try column.encode(shipment[keyPath: schema.properties[column.propertyIndex].keyPath])
        }
        #expect(values == [
            "delivered", 2, #"{"city":"Shelbyville","street":"2 Side St"}"#, #"["fragile","a/b"]"#,
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", 1_700_000_000.5, 2.5, 1, .blob([1, 2, 3]), 7, -3,
        ])
        let names = table.columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
        try db.connection.execute("INSERT INTO Shipment (\(names)) VALUES (\(marks))", values)
        let row = try #require(try db.connection.rows("SELECT \(names) FROM Shipment").first)
        let decoded = try zip(table.columns, row.values).map { column, value in try column.decode(value, table: "Shipment") }
        #expect(decoded[0] as? ShipmentStatus == .delivered)
        #expect(decoded[1] as? Priority? == .high)
        #expect(decoded[2] as? Address == shipment.address)
        #expect(decoded[3] as? [String] == ["fragile", "a/b"])
        #expect(decoded[4] as? UUID? == shipment.trackingID)
        #expect(decoded[5] as? Date? == shipment.shippedAt)
        #expect(decoded[6] as? Float == 2.5)
        #expect(decoded[7] as? Bool == true)
        #expect(decoded[8] as? Data == Data([1, 2, 3]))
        #expect(decoded[9] as? Int == 7)
        #expect(decoded[10] as? Int8 == -3)

        // nil optionals are NULL.
        let priority = table.columns[1]
        #expect(try priority.encode(Priority?.none as Any) == .null)
        #expect(try priority.decode(.null) as? Priority? == .some(nil))
        // Wrong values are mismatches naming the column.
        let status = #expect(throws: SQLiteError.self) { try table.columns[0].decode("lost", table: "Shipment") }
        #expect(status?.message == "Shipment.status holds TEXT 'lost' (no case has this raw value), expected ShipmentStatus")
        let json = #expect(throws: SQLiteError.self) { try table.columns[2].decode("{}", table: "Shipment") }
        #expect(json?.mismatch?.column == "address")
        #expect(json?.mismatch?.found.contains("invalid JSON for Address") == true)
        let wrongSwiftValue = #expect(throws: SQLiteError.self) { try table.columns[0].encode(42) }
        #expect(wrongSwiftValue?.mismatch?.expected == "ShipmentStatus")
    }

    @Test func unsupportedTypeIsAClearError() throws {
        let error = #expect(throws: SchemaMappingError.self) { try TableDefinition(for: Letter.self) }
        #expect(error == .unsupportedType(model: "Letter", property: "attachment", type: "Attachment"))
        #expect(error?.description == "Letter.attachment: type Attachment cannot be stored; make it SQLiteConvertible, Codable (stored as JSON), or @Transient")
        // Transient, it is fine.
        #expect(try TableDefinition(for: Letter2.self).columns.map(\.name) == ["subject"])
    }

    @Test func reservedAndDuplicateNames() throws {
        let id = #expect(throws: SchemaMappingError.self) { try TableDefinition(for: WithID.self) }
        #expect(id == .reservedName(model: "WithID", property: "id", name: "id"))
        #expect(id?.description == "WithID.id: the column name id is reserved for the row id; rename the property")
    }

    @Test func prototypeValueThatCannotBeStoredIsAnError() throws {
        let invoice = Invoice()
        invoice.unitPrice = .nan
        let error = #expect(throws: SchemaMappingError.self) { try TableDefinition(for: Invoice.self, defaultsFrom: invoice) }
        guard case .defaultNotStorable(let model, let property, _) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(model == "Invoice")
        #expect(property == "unitPrice")
    }

    // MARK: Models that grow

    @Test func newPropertiesAddColumnsWithTheirDefaultsAndRemovedOnesKeepTheirData() throws {
        let db = try TestDatabase()
        try Migrator(directory: schemaDirectory).migrate(db.connection)
        try db.connection.execute(
            "INSERT INTO Invoice (customer, quantity, unitPrice, discount) VALUES (?, ?, ?, ?)", ["Ada", 3, 9.5, 0.1])

        // InvoiceV2 (presented as Invoice): adds dueDate, paid, reference; drops number, note,
        // discount and tax (the sample's table has them).
        let v2 = try TableDefinition(schema: renamed(InvoiceV2._$schema, to: "Invoice"), defaultsFrom: InvoiceV2())
        let statements = try v2.migrationStatements(existing: db.connection.columns(in: "Invoice"))
        #expect(statements == [
            "ALTER TABLE Invoice ADD COLUMN dueDate REAL",
            "ALTER TABLE Invoice ADD COLUMN paid INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE Invoice ADD COLUMN reference TEXT NOT NULL DEFAULT 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'",
        ])
        db.clearLog()
        #expect(try v2.createOrUpdate(in: db.connection) == statements)
        #expect(db.transactionCount == 1)
        let row = try #require(try db.connection.rows("SELECT * FROM Invoice").first)
        #expect(row.columnNames == [
            "id", "number", "customer", "note", "quantity", "unitPrice", "discount", "tax", "customer_id", "dueDate", "paid", "reference",
        ])
        #expect(row.values == [1, 0, "Ada", "", 3, 9.5, 0.1, .real(0), nil, nil, 0, "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"],
                "the removed property's column keeps its data; new columns have their defaults")
        #expect(try v2.createOrUpdate(in: db.connection).isEmpty, "up to date now")

        // Rows inserted by the new model, which no longer writes discount, still work.
        try db.connection.execute("INSERT INTO Invoice (customer) VALUES (?)", ["Grace"])
        #expect(try db.connection.scalar("SELECT count(*) FROM Invoice", as: Int.self) == 2)
    }

    @Test func aNewNotNullColumnNeedsAUsableDefault() throws {
        let db = try TestDatabase()
        try Migrator(directory: schemaDirectory).migrate(db.connection)
        // Without a prototype, UUID has no zero value that reads back as a UUID.
        let v2 = try TableDefinition(schema: renamed(InvoiceV2._$schema, to: "Invoice"))
        let error = #expect(throws: SchemaMappingError.self) {
            try v2.migrationStatements(existing: db.connection.columns(in: "Invoice"))
        }
        #expect(error == .newColumnNeedsDefault(model: "Invoice", property: "reference", valueType: "UUID"))
        #expect(error?.description.contains("defaultsFrom:") == true)
    }

    @Test func aChangedTypeIsRefusedWithWhatToDo() throws {
        let db = try TestDatabase()
        try Migrator(directory: schemaDirectory).migrate(db.connection)
        let changed = try TableDefinition(schema: renamed(InvoiceQuantityAsText._$schema, to: "Invoice"))
        let error = #expect(throws: SchemaMappingError.self) {
            try changed.createOrUpdate(in: db.connection)
        }
        #expect(error == .columnTypeChanged(model: "Invoice", property: "quantity", valueType: "String", declaredType: "INTEGER", expected: "TEXT"))
        let description = String(describing: error!)
        #expect(description.hasPrefix("Invoice.quantity: the table's column is declared INTEGER, but the property's type String needs TEXT."))
        #expect(description.contains("give the property a new name"))
        #expect(description.contains("add a numbered migration to schema/"))
        #expect(!db.connection.isInTransaction)
    }

    @Test func aChangedNullabilityIsRefused() throws {
        let db = try TestDatabase()
        try Migrator(directory: schemaDirectory).migrate(db.connection)
        let optional = try TableDefinition(schema: renamed(InvoiceOptionalQuantity._$schema, to: "Invoice"))
        let madeOptional = #expect(throws: SchemaMappingError.self) {
            try optional.migrationStatements(existing: db.connection.columns(in: "Invoice"))
        }
        #expect(madeOptional == .nullabilityChanged(model: "Invoice", property: "quantity", valueType: "Optional<Int>", columnIsNotNull: true))

        let required = try TableDefinition(schema: renamed(InvoiceRequiredDiscount._$schema, to: "Invoice"))
        let madeRequired = #expect(throws: SchemaMappingError.self) {
            try required.migrationStatements(existing: db.connection.columns(in: "Invoice"))
        }
        #expect(madeRequired == .nullabilityChanged(model: "Invoice", property: "discount", valueType: "Double", columnIsNotNull: false))
        #expect(madeRequired?.description.contains("rows holding NULL could not be loaded") == true)
    }

    @Test func tablesThatCannotWorkAreRefused() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE Invoice (customer TEXT NOT NULL)")
        let table = try TableDefinition(for: Invoice.self)
        #expect(throws: SchemaMappingError.missingPrimaryKey(table: "Invoice")) {
            try table.migrationStatements(existing: db.connection.columns(in: "Invoice"))
        }

        let other = try TestDatabase()
        try other.connection.execute("CREATE TABLE Invoice (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, legacy TEXT NOT NULL)")
        let orphan = #expect(throws: SchemaMappingError.self) {
            try table.migrationStatements(existing: other.connection.columns(in: "Invoice"))
        }
        #expect(orphan == .orphanedColumnBlocksInserts(table: "Invoice", column: "legacy"))
    }

    @Test func identifiersAreQuotedOnlyWhenNeeded() throws {
        let table = try TableDefinition(for: Shipment.self)
        #expect(table.columns.first { $0.name == "order" }?.sql == #""order" INTEGER NOT NULL DEFAULT 0"#)
        #expect(table.columns.first { $0.name == "status" }?.sql == "status TEXT NOT NULL", "no prototype, and '' is no case: no DEFAULT")
    }
}
