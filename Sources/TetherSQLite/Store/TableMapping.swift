import CSQLite
import Foundation
import Synchronization

/// Reads and writes one persisted property of the models of one type, converting to and from
/// SQLite values. For a property whose type is `SQLiteConvertible` both directions are typed
/// (no `Any`, no dynamic cast) and read the backing storage directly.
struct _ColumnIO: @unchecked Sendable {
    // The closures are made from the schema's `Sendable` closures and are used on the model's
    // thread (the store's), or on the writer queue while that thread waits (`_WaitingModels`).
    let read: (AnyObject) throws(SQLiteError) -> SQLiteValue
    let write: (AnyObject, SQLiteValue) throws(SQLiteError) -> Void
    /// For a to-one relationship: the related model type, and how to set the property to a
    /// related model or to nil. (`write` leaves such a property alone: the store resolves the
    /// id it reads into the live model of that row, see `Store.resolve`.)
    var relation: (target: any PersistentModel.Type, set: (AnyObject, AnyObject?) -> Void)?
    /// For a reference back (`@Relationship var invoice: Invoice?`): sets a new model's
    /// reference to a row id, loaded when first read.
    var setReferenceID: ((AnyObject, Int64) -> Void)?
    /// Reads the column straight from a result row into the model, for the types
    /// `_LoadableColumn` covers (nil otherwise: `write` takes the column as a `SQLiteValue`).
    var load: _ColumnLoader?

    /// The reader and writer of `property`, stored in `column`.
    static func make<M: AnyObject>(_ property: ModelProperty<M>, column: ColumnDefinition) -> _ColumnIO {
        if let target = column.codec.relationTarget, let none = column.codec.none {
            var io = _ColumnIO(
                read: { object throws(SQLiteError) in try column.encode(property.get(unsafeDowncast(object, to: M.self))) },
                write: { _, _ throws(SQLiteError) in })
            if let referencedID = property.referencedID, let setReferencedID = property.setReferencedID {
                // A reference back (`@Relationship var invoice: Invoice?`): the id it keeps, even
                // when its target was freed; a target not stored yet is an error (insert it first).
                io = _ColumnIO(
                    read: { object throws(SQLiteError) in
                        let model = unsafeDowncast(object, to: M.self)
                        let id = referencedID(model)
                        return id > 0 ? .integer(id) : try column.encode(property.get(model))
                    },
                    write: { _, _ throws(SQLiteError) in })
                io.setReferenceID = { object, id in setReferencedID(unsafeDowncast(object, to: M.self), id) }
            }
            io.relation = (target, { object, related in property.set(unsafeDowncast(object, to: M.self), related ?? none) })
            return io
        }
        if let convertible = property.valueType as? any SQLiteConvertible.Type,
           let typed = typed(convertible, property) {
            return typed
        }
        return _ColumnIO(
            read: { object throws(SQLiteError) in try column.encode(property.get(unsafeDowncast(object, to: M.self))) },
            write: { object, value throws(SQLiteError) in property.set(unsafeDowncast(object, to: M.self), try column.decode(value)) })
    }

    private static func typed<M: AnyObject, T: SQLiteConvertible>(_: T.Type, _ property: ModelProperty<M>) -> _ColumnIO? {
        guard let get = property.storageReader(as: T.self), let set = property.setterBox(as: T.self) else { return nil }
        var io = _ColumnIO(
            read: { object throws(SQLiteError) in try get.get(unsafeDowncast(object, to: M.self)).sqliteValue() },
            write: { object, value throws(SQLiteError) in set.set(unsafeDowncast(object, to: M.self), try T(sqliteValue: value)) })
        io.load = loader(property)
        return io
    }
}

/// What the store knows about one model type's table.
final class _Table: @unchecked Sendable {
    // Immutable after init (the hooks are set at the end of init); used on the model's thread,
    // and on the writer queue: its SQL strings at any time, and the rest (the column readers
    // and writers, `makeModel`, the hooks) only while the model's thread waits for the queue
    // (see `_WaitingModels` and `_WhileWaiting`).
    let definition: TableDefinition
    /// Makes a model of the table's type with its default values, and returns its registrar
    /// (inside the model: valid while the model lives).
    let makeModel: () -> (AnyObject, UnsafePointer<ModelRegistrar>)
    /// The registrar of a model of the table's type (inside the model: valid while it lives).
    let registrarOf: (AnyObject) -> UnsafePointer<ModelRegistrar>
    /// The reader and writer of each column of `definition.columns`, in that order.
    let columns: [_ColumnIO]
    /// Each column's loader, unretained (`columns` holds them), so that `materialize` calls it
    /// without retaining it: a closure read from an array is retained and released per call.
    private let loaders: [Unmanaged<_ColumnLoader>?]
    let propertyNames: [String]
    let name: String
    let quotedName: String
    let insertSQL: String
    let selectSQL: String
    /// The store, for the to-one relationships a reload resolves (the box does not keep it alive).
    let box: _StoreBox
    /// Whether the model type declares rules (`Validating`): only then is a row validated before
    /// it is written.
    let validates: Bool
    /// Every column, id first, as a SELECT lists them.
    let selectColumns: String
    let selectByIDSQL: String
    private let columnByProperty: [Int: ColumnDefinition]
    /// The properties stored as to-one relationships (a row id of another table), each with
    /// the related table: a commit checks that the rows they name were not deleted after the
    /// last look its values reflect (see `Store.encode`).
    let references: [(property: Int, table: String)]
    /// The position in `columns` of each property's column, by property index (nil: transient).
    private let positionByProperty: [Int?]
    private let updateSQLCache = _Locked<[_ColumnSet: String]>([:])
    /// Installed on the registrar of every live model of the table: records its changes.
    private(set) var liveHook: _PersistenceHook!
    /// Installed on the registrar of a model whose row was deleted: reports its changes as errors.
    private(set) var deletedHook: _PersistenceHook!
    /// Installed instead of `liveHook` on a parent loaded from its row: it records its changes
    /// too, and says that its to-many collections wait for their first use, which loads them.
    private(set) var unloadedHook: _PersistenceHook!

    /// How many models of this table holding one of its hooks have been freed.
    var endedModels: Int {
        liveHook.endedModels.load(ordering: .relaxed) + unloadedHook.endedModels.load(ordering: .relaxed)
            + deletedHook.endedModels.load(ordering: .relaxed)
    }

    init(makeModel: @escaping () -> (AnyObject, UnsafePointer<ModelRegistrar>),
         registrarOf: @escaping (AnyObject) -> UnsafePointer<ModelRegistrar>,
         definition: TableDefinition, columns: [_ColumnIO], propertyNames: [String], validates: Bool, box: _StoreBox) {
        self.validates = validates
        self.box = box
        self.makeModel = makeModel
        self.registrarOf = registrarOf
        self.definition = definition
        self.columns = columns
        self.loaders = columns.map { $0.load.map { Unmanaged.passUnretained($0) } }
        self.propertyNames = propertyNames
        self.name = definition.tableName
        self.quotedName = _quote(definition.tableName)
        let quotedColumns = definition.columns.map { _quote($0.name) }
        let placeholders = Array(repeating: "?", count: quotedColumns.count).joined(separator: ", ")
        // A model whose only properties are collections (or transient) has no column but the id.
        self.insertSQL = quotedColumns.isEmpty
            ? "INSERT INTO \(quotedName) DEFAULT VALUES"
            : "INSERT INTO \(quotedName) (\(quotedColumns.joined(separator: ", "))) VALUES (\(placeholders))"
        self.selectColumns = "id" + quotedColumns.map { ", " + $0 }.joined()
        self.selectSQL = "SELECT \(selectColumns) FROM \(quotedName)"
        self.selectByIDSQL = selectSQL + " WHERE id = ?"
        var byProperty: [Int: ColumnDefinition] = [:]
        var positions = [Int?](repeating: nil, count: propertyNames.count)
        for (position, column) in definition.columns.enumerated() {
            byProperty[column.propertyIndex] = column
            positions[column.propertyIndex] = position
        }
        self.columnByProperty = byProperty
        self.positionByProperty = positions
        self.references = zip(definition.columns, columns).compactMap { column, io in
            io.relation.map { (column.propertyIndex, $0.target._tableName) }
        }
        // A hook lives as long as a model holding it, maybe longer than the store: it reaches the
        // store through the box (which does not keep it alive), and the table only while the
        // store (which holds the table) is alive.
        // A reference back whose target was freed loads it again through the store.
        let resolve: @Sendable (any Model.Type, Int64) -> AnyObject? = { type, id in
            guard let type = type as? any PersistentModel.Type, let store = box.store else { return nil }
            return try? store.related(type, id: id)
        }
        let changed: @Sendable (AnyObject, borrowing ModelRegistrar, Int) -> Void = { [unowned self] model, registrar, index in
            box.store?.changed(model, registrar, column: index, table: self)
        }
        liveHook = _PersistenceHook(changed: changed, resolve: resolve)
        unloadedHook = _PersistenceHook(
            changed: changed, resolve: resolve, collectionsUnloaded: true,
            loadCollections: { [unowned self] model, registrar in
                box.store?.loadCollectionsOnFirstUse(model, registrar, table: self)
            })
        deletedHook = _PersistenceHook(
            changed: { [unowned self] _, registrar, index in
                box.store?.changedAfterDeletion(registrar, column: index, table: self)
            },
            resolve: resolve)
    }

    func persistsProperty(_ index: Int) -> Bool {
        index < positionByProperty.count && positionByProperty[index] != nil
    }

    /// The position in `columns` of property `index`'s column (nil: not persisted).
    func position(ofProperty index: Int) -> Int? {
        index < positionByProperty.count ? positionByProperty[index] : nil
    }

    /// `SELECT` of the given columns (every column, id first, when nil) of the rows matching
    /// `condition`, ordered by property `orderBy` (then by id), or by id, and paged.
    func querySQL(
        columns: String?,
        where condition: String?,
        orderBy: Int?,
        descending: Bool,
        limit: Int? = nil,
        offset: Int? = nil
    ) throws(StoreError) -> String {
        var orderColumn: String?
        if let orderBy {
            guard let column = column(forProperty: orderBy) else {
                let name = orderBy < propertyNames.count ? propertyNames[orderBy] : nil
                throw .mapping(.notStored(model: definition.modelName, property: name, reason: "has no column: a query cannot order by it"))
            }
            orderColumn = Store.dialect.quote(column.name)
        }
        return Store.dialect.select(
            columns ?? selectColumns, from: quotedName, where: condition, orderBy: orderColumn, descending: descending,
            limit: limit, offset: offset)
    }

    /// The WHERE clause of a typed condition, with its bound values.
    func render<M>(_ condition: Condition<M>) throws(StoreError) -> (sql: String, arguments: [SQLiteValue]) {
        var arguments: [SQLiteValue] = []
        let sql = try Store.dialect.render(condition, column: { self.column(forProperty: $0)?.name }, arguments: &arguments)
        return (sql, arguments)
    }

    func column(forProperty index: Int) -> ColumnDefinition? { columnByProperty[index] }

    /// `UPDATE` of the columns of `properties` (persisted properties, by index), in the
    /// order of their indexes, of the row whose id is the last argument.
    func updateSQL(properties: _ColumnSet) -> String {
        updateSQLCache.withLock { cache in
            if let sql = cache[properties] { return sql }
            let sets = properties.compactMap { column(forProperty: $0) }.map { "\(_quote($0.name)) = ?" }.joined(separator: ", ")
            let sql = "UPDATE \(quotedName) SET \(sets) WHERE id = ?"
            cache[properties] = sql
            return sql
        }
    }

    /// Binds the value of every column of `model`, in column order, to `statement`'s
    /// parameters 1, 2, ...
    func bindAll(_ model: AnyObject, to statement: Statement) throws(SQLiteError) {
        for position in columns.indices { try statement.bind(try encode(position: position, of: model), at: position + 1) }
    }

    /// The value of property `index` of `model` (a persisted property).
    func encode(property index: Int, of model: AnyObject) throws(SQLiteError) -> SQLiteValue {
        try encode(position: positionByProperty[index]!, of: model)
    }

    private func encode(position: Int, of model: AnyObject) throws(SQLiteError) -> SQLiteValue {
        do {
            return try columns[position].read(model)
        } catch {
            throw error.locating(table: nil, column: definition.columns[position].name, sql: nil)
        }
    }

    /// Steps `statement` (the id, then every column) and appends the live model of each row
    /// to `out`: the one in `live` (the table's identity map) if there is one, else a new model
    /// made from the row, owned by thread `owner`, written through from now on and added to
    /// `live` (and its id to `made`, if given). (Not generic, so that nothing here looks up generic type metadata per row.) On
    /// error, `out` holds the models of the rows before.
    ///
    /// Runs on the writer queue while the models' thread waits (see `_WhileWaiting`).
    func materialize(
        _ statement: Statement, live: _RowMap, into out: inout _FetchedModels,
        made: UnsafeMutablePointer<[Int64]>? = nil, owner: UInt
    ) throws(SQLiteError) {
        // Everything the loop uses is loaded once (no retain and release per row).
        let hook = liveHook!
        let makeModel = self.makeModel
        let loaders = self.loaders
        // The models made here belong to `owner` from the start (`ModelRegistrar.making`), as do
        // any their initializers make.
        try ModelRegistrar.making(ownedBy: owner) { () throws(SQLiteError) in
            try columns.withUnsafeBufferPointer { columns throws(SQLiteError) in
                while try statement.step() {
                    let idValue = sqlite3_column_value(statement.handle, 0)
                    guard sqlite3_value_type(idValue) == SQLITE_INTEGER else { continue }
                    let id = sqlite3_value_int64(idValue)
                    if let model = live[id] {
                        out.append(model)
                        continue
                    }
                    let (model, registrar) = makeModel()
                    for position in 0..<columns.count {
                        if let loader = loaders[position] {
                            let index = Int32(truncatingIfNeeded: position + 1)
                            if let error = loader._withUnsafeGuaranteedRef({ $0.load(model, statement, index) }) {
                                throw located(error, position: position)
                            }
                            continue
                        }
                        let value = try statement.value(at: position + 1)
                        if columns[position].relation != nil {
                            // A reference back keeps the id and loads its target when read; another
                            // to-one relationship's row becomes a model on the model's thread, after
                            // the fetch.
                            if case .integer(let related) = value {
                                if let setID = columns[position].setReferenceID { setID(model, related) } else { out.relations.append((model, position, related)) }
                            }
                            continue
                        }
                        do throws(SQLiteError) {
                            try columns[position].write(model, value)
                        } catch {
                            throw located(error, position: position)
                        }
                    }
                    registrar.pointee.adopt(owner: owner)
                    registrar.pointee.rowID.store(id, ordering: .relaxed)
                    registrar.pointee.installPersistence(hook)
                    live.set(model, for: id)
                    made?.pointee.append(id)
                    if out.collectsFresh { out.fresh.append((model, id)) }
                    out.append(model)
                }
            }
        }
    }

    /// `error`, naming this table and the column at `position`.
    private func located(_ error: SQLiteError, position: Int) -> SQLiteError {
        error.locating(table: name, column: definition.columns[position].name, sql: nil)
    }

    /// Sets the property stored in column `position` of `model` from `value`; a value that does
    /// not fit is a mismatch naming the table and column. A to-one relationship's id becomes the
    /// live model of that row (loaded if it is not in memory; nil if there is no such row).
    func decode(_ value: SQLiteValue, position: Int, into model: AnyObject) throws(SQLiteError) {
        if let relation = columns[position].relation {
            let related: AnyObject?
            switch value {
            case .null: related = nil
            case .integer(let id):
                guard let store = box.store else { return }
                if store.state.inWriteLock {
                    // `update` holds the write lock on the writer queue, which cannot load now:
                    // the live model of the row, or the property is left as it is.
                    guard let live = store.state.identity[_RowKey(table: relation.target._tableName, id: id)] else { return }
                    related = live
                } else {
                    related = try store.related(relation.target, id: id)
                }
            default: throw located(.mismatch(expected: "the row id of a \(relation.target)", found: value.summary), position: position)
            }
            relation.set(model, related)
            return
        }
        do {
            try columns[position].write(model, value)
        } catch {
            throw located(error, position: position)
        }
    }

    /// Sets the to-one relationship in column `position` of a model to a related model, or to
    /// nil, through the property's setter (so the change is written through).
    func setRelation(at position: Int) -> (AnyObject, AnyObject?) -> Void {
        columns[position].relation!.set
    }

    /// The positions of the to-one relationships' columns.
    var relationPositions: [Int] { columns.indices.filter { columns[$0].relation != nil } }
}

func _quote(_ identifier: String) -> String {
    Store.dialect.quote(identifier)
}

