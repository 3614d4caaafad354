import CSQLite
import Foundation
import Tether

/// The table that stores a model type: one `id INTEGER PRIMARY KEY` column, then one column
/// per persisted property in declaration order (transient properties have none).
///
/// Built from the schema `@Model` records. Each property's type decides its column (see
/// ``SQLiteConvertible``): a non-optional is `NOT NULL`, an enum is stored as its raw value, a
/// `Codable` type as JSON text. A type that fits none of these is an error naming the property.
///
/// ```swift
/// @Model final class Invoice {
///     var customer = ""
///     var quantity = 1
///     var unitPrice = 0.0
///     var discount: Double? = nil
///     @Transient var draftNote = ""
/// }
///
/// let table = try TableDefinition(for: Invoice.self, defaultsFrom: Invoice())
/// print(table.createTableSQL)
/// // CREATE TABLE Invoice (
/// //     id INTEGER PRIMARY KEY,
/// //     customer TEXT NOT NULL DEFAULT '',
/// //     quantity INTEGER NOT NULL DEFAULT 1,
/// //     unitPrice REAL NOT NULL DEFAULT 0,
/// //     discount REAL
/// // );
/// try table.createOrUpdate(in: connection)   // creates the table, or adds new columns
/// ```
///
/// Defaults: given a prototype instance (`defaultsFrom:`), each column's DEFAULT is the
/// prototype's value, so rows inserted by other programs and columns added later get the
/// model's initial values. Without one, a NOT NULL column gets the zero of its storage
/// (`0`, `''`, `X''`) as DEFAULT when the property's type accepts that value, and no DEFAULT
/// otherwise.
public struct TableDefinition: Sendable {
    /// The model type's name.
    public let modelName: String
    /// The table's name (the model's name).
    public let tableName: String
    /// The columns after `id`, one per persisted property, in declaration order.
    public let columns: [ColumnDefinition]

    /// The definition for the model type `M`, with DEFAULTs from `prototype` when given.
    public init<M: Model>(for type: M.Type, defaultsFrom prototype: M? = nil) throws(SchemaMappingError) {
        try self.init(schema: M._$schema, defaultsFrom: prototype)
    }

    /// The definition for the model described by `schema`, with DEFAULTs from `prototype`.
    public init<Root: AnyObject>(schema: ModelSchema<Root>, defaultsFrom prototype: Root? = nil) throws(SchemaMappingError) {
        let model = schema.name
        if model.lowercased().hasPrefix("sqlite_") { throw .reservedName(model: model, property: nil, name: model) }
        var columns: [ColumnDefinition] = []
        var seen: [String: String] = ["id": "the row id"]
        for property in schema.persistedProperties {
            let folded = property.name.lowercased()
            if folded == "id" { throw .reservedName(model: model, property: property.name, name: property.name) }
            if let other = seen[folded] {
                throw .duplicateColumn(model: model, property: property.name, other: other)
            }
            seen[folded] = property.name
            guard let codec = ValueCodec.for(property.valueType) else {
                throw .unsupportedType(model: model, property: property.name, type: "\(property.valueType)")
            }
            var defaultValue: SQLiteValue?
            if let prototype {
                do {
                    defaultValue = try codec.encode(prototype[keyPath: property.keyPath])
                } catch {
                    throw .defaultNotStorable(model: model, property: property.name, error: error)
                }
                if defaultValue == .null { defaultValue = nil }
            } else if !codec.isNullable {
                let zero = codec.columnType.zeroValue
                if (try? codec.decode(zero)) != nil { defaultValue = zero }
            }
            columns.append(
                ColumnDefinition(
                    name: codec.relationTarget == nil ? property.name : property.name + "_id",
                    table: model,
                    propertyIndex: property.index, propertyName: property.name,
                    valueTypeName: "\(property.valueType)", type: codec.columnType,
                    isNullable: codec.isNullable, defaultValue: defaultValue, codec: codec,
                    onDelete: codec.relationTarget.flatMap { declaredDeleteRule(inverse: property.keyPath, in: $0) } ?? .nullify))
        }
        self.modelName = model
        self.tableName = model
        self.columns = columns
    }

    /// `CREATE TABLE Invoice (id INTEGER PRIMARY KEY, customer TEXT NOT NULL DEFAULT '', ...);`,
    /// one column per line. Names are quoted only when they need it (SQL keywords such as
    /// `order`, or names that are not plain identifiers).
    public var createTableSQL: String {
        let lines = ["id INTEGER PRIMARY KEY"] + columns.map(\.sql)
        return "CREATE TABLE \(quoteIdentifier(tableName)) (\n" + lines.map { "    " + $0 }.joined(separator: ",\n") + "\n);"
    }

    /// The statements that bring an existing table (described by `existing`, from
    /// ``Connection/columns(in:)``) in line with the model: `CREATE TABLE` when `existing` is
    /// empty, an `ALTER TABLE … ADD COLUMN` per new property, nothing for a column whose
    /// property was removed (its data stays).
    ///
    /// ```swift
    /// let statements = try table.migrationStatements(existing: connection.columns(in: "Invoice"))
    /// // ["ALTER TABLE Invoice ADD COLUMN dueDate REAL"]
    /// ```
    ///
    /// Refuses, saying what to do: a column whose type or nullability changed, a new NOT NULL
    /// column without a usable default, a table without `id INTEGER PRIMARY KEY`, and a
    /// left-over NOT NULL column without DEFAULT (it would make every insert fail).
    public func migrationStatements(existing: [TableColumnInfo]) throws(SchemaMappingError) -> [String] {
        guard !existing.isEmpty else { return [createTableSQL] + columns.compactMap(\.indexSQL) }
        func find(_ name: String) -> TableColumnInfo? {
            let folded = name.lowercased()
            return existing.first { $0.name.lowercased() == folded }
        }
        guard let id = find("id"), id.primaryKeyPosition == 1, id.declaredType.uppercased() == "INTEGER",
            existing.filter({ $0.primaryKeyPosition > 0 }).count == 1
        else {
            throw .missingPrimaryKey(table: tableName)
        }
        var statements: [String] = []
        for column in columns {
            guard let current = find(column.name) else {
                statements.append("ALTER TABLE \(quoteIdentifier(tableName)) ADD COLUMN \(try column.addColumnSQL(model: modelName))")
                if let index = column.indexSQL { statements.append(index) }
                continue
            }
            let affinity = SQLiteColumnType.affinity(ofDeclaredType: current.declaredType)
            if affinity != column.type.rawValue {
                throw .columnTypeChanged(
                    model: modelName, property: column.propertyName, valueType: column.valueTypeName,
                    declaredType: current.declaredType, expected: column.type.rawValue)
            }
            if current.isNotNull == column.isNullable {
                throw .nullabilityChanged(
                    model: modelName, property: column.propertyName, valueType: column.valueTypeName,
                    columnIsNotNull: current.isNotNull)
            }
        }
        for current in existing where current.primaryKeyPosition == 0 {
            let folded = current.name.lowercased()
            let kept = columns.contains { $0.name.lowercased() == folded }
            if !kept, current.isNotNull, current.defaultSQL == nil {
                throw .orphanedColumnBlocksInserts(table: tableName, column: current.name)
            }
        }
        return statements
    }

    /// Creates the table, or adds the columns of new properties, in one transaction; returns
    /// the statements it ran (empty when the table was already up to date).
    ///
    /// ```swift
    /// try TableDefinition(for: Invoice.self, defaultsFrom: Invoice()).createOrUpdate(in: connection)
    /// ```
    @discardableResult
    public func createOrUpdate(in connection: Connection) throws -> [String] {
        try connection.inTransaction {
            let statements = try migrationStatements(existing: connection.columns(in: tableName))
            for statement in statements { try connection.execute(statement) }
            return statements
        }
    }
}

/// One column of a model's table: the property it stores and how.
public struct ColumnDefinition: Sendable {
    /// The column's name: the property's name, with `_id` after it for a to-one relationship.
    public let name: String
    /// The table's name.
    let table: String
    /// The property's index in the model's schema (`ModelProperty.index`).
    public let propertyIndex: Int
    /// The property's name.
    public let propertyName: String
    /// The property's Swift type, for messages (`Optional<Double>`).
    public let valueTypeName: String
    /// The declared column type.
    public let type: SQLiteColumnType
    /// For a to-one relationship (`var customer: Customer?`): the related model's table, whose
    /// row id the column (`customer_id`) holds.
    public var referencedTable: String? { codec.relationTarget.map { $0._tableName } }
    /// Whether the column accepts NULL (the property is optional).
    public let isNullable: Bool
    /// The column's DEFAULT, if it has one.
    public let defaultValue: SQLiteValue?
    let codec: ValueCodec
    /// For a to-one relationship: what deleting the referenced row does to this one, as the
    /// referenced model's to-many relationship declares it (`.nullify` when none does).
    public var onDelete: DeleteRule = .nullify

    /// `customer TEXT NOT NULL DEFAULT ''`; for a to-one relationship
    /// `customer_id INTEGER REFERENCES Customer(id) ON DELETE SET NULL` (`CASCADE` or `RESTRICT`
    /// for the inverse of a to-many relationship whose delete rule is `.cascade` or `.deny`).
    public var sql: String {
        var text = "\(quoteIdentifier(name)) \(type.rawValue)"
        if !isNullable { text += " NOT NULL" }
        if let defaultValue { text += " DEFAULT \(defaultValue.sqlLiteral)" }
        if let referencedTable {
            let action = switch onDelete { case .nullify: "SET NULL"; case .cascade: "CASCADE"; case .deny: "RESTRICT" }
            text += " REFERENCES \(quoteIdentifier(referencedTable))(id) ON DELETE \(action)"
        }
        return text
    }

    /// The index a to-one relationship's column gets (finding an invoice's customer is by id;
    /// finding a customer's invoices needs this), or nil for other columns.
    var indexSQL: String? {
        guard referencedTable != nil else { return nil }
        return "CREATE INDEX IF NOT EXISTS \(quoteIdentifier(table + "_" + name)) ON \(quoteIdentifier(table))(\(quoteIdentifier(name)))"
    }

    /// The column for `ALTER TABLE … ADD COLUMN`: a NOT NULL column needs a DEFAULT there.
    func addColumnSQL(model: String) throws(SchemaMappingError) -> String {
        if !isNullable && defaultValue == nil {
            throw .newColumnNeedsDefault(model: model, property: propertyName, valueType: valueTypeName)
        }
        return sql
    }

    /// The property's value (as `Any`, read through its key path) as an SQLite value.
    ///
    /// ```swift
    /// let quantity = table.columns[1]
    /// try quantity.encode(invoice[keyPath: \Invoice.quantity])   // .integer(3)
    /// ```
    public func encode(_ value: Any) throws(SQLiteError) -> SQLiteValue {
        do { return try codec.encode(value) } catch { throw error.locating(table: nil, column: name, sql: nil) }
    }

    /// An SQLite value read from this column as a value of the property's type (as `Any`);
    /// a value that does not fit is a mismatch naming the column.
    public func decode(_ value: SQLiteValue, table: String? = nil) throws(SQLiteError) -> Any {
        do { return try codec.decode(value) } catch { throw error.locating(table: table, column: name, sql: nil) }
    }
}

/// Why a model type cannot be mapped to a table, or its table cannot be updated. Each case's
/// description names the model and property and says what to do.
public enum SchemaMappingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A persisted property whose type cannot be stored.
    case unsupportedType(model: String, property: String, type: String)
    /// A model or property name that Tether reserves (`id`; `sqlite_…` tables).
    case reservedName(model: String, property: String?, name: String)
    /// Two properties whose names differ only in case (SQL names ignore case).
    case duplicateColumn(model: String, property: String, other: String)
    /// The prototype's value of a property cannot be stored as a DEFAULT.
    case defaultNotStorable(model: String, property: String, error: SQLiteError)
    /// The existing column's declared type does not match the property's type.
    case columnTypeChanged(model: String, property: String, valueType: String, declaredType: String, expected: String)
    /// The property became optional (the column is NOT NULL) or non-optional (it is nullable).
    case nullabilityChanged(model: String, property: String, valueType: String, columnIsNotNull: Bool)
    /// A new non-optional property has no default to fill the existing rows with.
    case newColumnNeedsDefault(model: String, property: String, valueType: String)
    /// The existing table has no `id INTEGER PRIMARY KEY` column.
    case missingPrimaryKey(table: String)
    /// A column the model no longer has is NOT NULL without DEFAULT: inserts would fail.
    case orphanedColumnBlocksInserts(table: String, column: String)
    /// A query names a property that has no column (a computed or `@Transient` property, a
    /// to-many relationship, a path through another model); `reason` says which, and what to
    /// use instead.
    case notStored(model: String, property: String?, reason: String)
    /// A relationship declared in a way the store cannot keep (its inverse, its order or its
    /// related type); `problem` says what to change.
    case invalidRelationship(model: String, property: String, problem: String)

    /// A sentence naming the model and property, saying what to do.
    public var description: String {
        switch self {
        case .unsupportedType(let model, let property, let type):
            return "\(model).\(property): type \(type) cannot be stored; make it SQLiteConvertible, Codable (stored as JSON), or @Transient"
        case .reservedName(let model, let property?, let name):
            return "\(model).\(property): the column name \(name) is reserved for the row id; rename the property"
        case .reservedName(let model, nil, _):
            return "\(model): table names starting with sqlite_ are reserved by SQLite; rename the model"
        case .duplicateColumn(let model, let property, let other):
            return "\(model).\(property): SQL column names ignore case, so it would share a column with \(other); rename one of them"
        case .defaultNotStorable(let model, let property, let error):
            return "\(model).\(property): its initial value cannot be stored as the column's DEFAULT: \(error)"
        case .columnTypeChanged(let model, let property, let valueType, let declaredType, let expected):
            return "\(model).\(property): the table's column is declared \(declaredType.isEmpty ? "without a type" : declaredType), but the property's type \(valueType) needs \(expected). SQLite cannot change a column's type in place: change the property's type back, or give the property a new name (a new column is added and the old column keeps its data), or add a numbered migration to schema/ that converts the column"
        case .nullabilityChanged(let model, let property, let valueType, let columnIsNotNull):
            return columnIsNotNull
                ? "\(model).\(property): the property's type \(valueType) is optional but the column is NOT NULL, so nil could not be saved. Make the property non-optional again, give it a new name (a new nullable column is added), or add a numbered migration to schema/ that rebuilds the table"
                : "\(model).\(property): the property's type \(valueType) is not optional but the column allows NULL, so rows holding NULL could not be loaded. Make the property optional again, give it a new name, or add a numbered migration to schema/ that fills the NULLs and rebuilds the table"
        case .newColumnNeedsDefault(let model, let property, let valueType):
            return "\(model).\(property): the existing rows need a value for this new \(valueType) column; create the table definition with a prototype (defaultsFrom:) so its initial value becomes the DEFAULT, or make the property optional"
        case .missingPrimaryKey(let table):
            return "table \(table) has no id INTEGER PRIMARY KEY column, which Tether uses as the row id; rebuild it with a numbered migration in schema/"
        case .notStored(let model, let property?, let reason):
            return "\(model).\(property) \(reason)"
        case .notStored(let model, nil, let reason):
            return "a key path from \(model) through another property \(reason)"
        case .invalidRelationship(let model, let property, let problem):
            return "\(model).\(property): \(problem)"
        case .orphanedColumnBlocksInserts(let table, let column):
            return "\(table).\(column): the model no longer has this property, and the column is NOT NULL without a DEFAULT, so new rows could not be inserted; add the property back, or add a numbered migration to schema/ that rebuilds the table"
        }
    }
}

/// The delete rule that `target`'s to-many relationship with the inverse `keyPath` declares, if
/// one does.
func declaredDeleteRule(inverse keyPath: AnyKeyPath, in target: any PersistentModel.Type) -> DeleteRule? {
    func find<T: PersistentModel>(_: T.Type) -> DeleteRule? {
        T._$schema.properties.lazy.compactMap(\.relationship).first { $0.inverse == keyPath }?.deleteRule
    }
    return find(target)
}

/// `name`, or `"name"` when it is an SQL keyword or not a plain identifier.
func quoteIdentifier(_ name: String) -> String {
    let isPlain = !name.isEmpty && name.utf8.enumerated().allSatisfy { offset, byte in
        byte == UInt8(ascii: "_") || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || (offset > 0 && byte >= 0x30 && byte <= 0x39)
    }
    let isKeyword = name.withCString { sqlite3_keyword_check($0, Int32(name.utf8.count)) != 0 }
    if isPlain && !isKeyword { return name }
    return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
