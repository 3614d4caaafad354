import Tether

// To-many relationships: `@Relationship(inverse: \InvoiceLine.invoice, deleteRule: .cascade,
// orderBy: \InvoiceLine.position) var lines: [InvoiceLine]` on the parent, stored in the
// children's foreign-key column (`invoice_id`). The store keeps each live parent's collection in
// step with the rows and with its live children, in the declared order:
//
// - a parent's collections are loaded on their first use (a read or a write of one of them),
//   one query per relationship, not with the parent: loading customers does not load every
//   invoice, and an invoice's customer does not load the customer's other invoices;
// - a child given another parent (here, or by another connection or process), inserted or
//   deleted leaves its old parent's collection and joins its new one's (`place`);
// - appending to or removing from a collection sets the children's inverse (and inserts
//   children that are not stored yet);
// - deleting a parent applies the delete rule, in the database (triggers, so that the sqlite3
//   shell and other programs are held to it too, whatever their foreign-key setting).

/// One to-many relationship, as the store uses it.
struct _ToMany {
    /// The parent's table, and the relationship's property there.
    let parentTable: String
    let propertyIndex: Int
    let name: String
    let relationship: ModelRelationship
    /// The children's table and the position there of the foreign-key column (the inverse)
    /// and of the order column.
    let childTable: String
    let childType: any PersistentModel.Type
    let foreignKeyPosition: Int
    let foreignKey: String
    let orderPosition: Int?
    let orderColumn: String?

    /// `tether_Invoice_lines_delete`: the trigger that applies the delete rule.
    var triggerName: String { "tether_\(parentTable)_\(name)_delete" }

    /// The trigger that applies the delete rule before a parent row is deleted.
    var triggerSQL: String {
        let parent = _quote(parentTable), child = _quote(childTable), key = _quote(foreignKey)
        let head = "CREATE TRIGGER \(_quote(triggerName)) BEFORE DELETE ON \(parent)"
        switch relationship.deleteRule {
        case .cascade where parentTable == childTable:
            // A tree (`Node.children`): its whole subtree at once. Another program's delete of a
            // child does not fire this trigger again (SQLite's `recursive_triggers` is off by
            // default, in the sqlite3 shell too), so one level at a time would stop at the
            // grandchildren.
            return "\(head) BEGIN DELETE FROM \(child) WHERE id IN (WITH RECURSIVE subtree(id) AS ("
                + "SELECT id FROM \(child) WHERE \(key) = OLD.id UNION "
                + "SELECT \(child).id FROM \(child) JOIN subtree ON \(child).\(key) = subtree.id) "
                + "SELECT id FROM subtree); END"
        case .cascade:
            return "\(head) BEGIN DELETE FROM \(child) WHERE \(key) = OLD.id; END"
        case .nullify:
            return "\(head) BEGIN UPDATE \(child) SET \(key) = NULL WHERE \(key) = OLD.id; END"
        case .deny:
            return "\(head) WHEN EXISTS (SELECT 1 FROM \(child) WHERE \(key) = OLD.id) "
                + "BEGIN SELECT RAISE(ABORT, '\(Self.denyMessagePrefix)\(parentTable).\(name)'); END"
        }
    }

    /// How a deny trigger's error message starts (then `Parent.relationship`).
    static let denyMessagePrefix = "tether: delete denied by "

    /// `SELECT id, ... FROM InvoiceLine WHERE invoice_id IN (?, ...) ORDER BY invoice_id,
    /// position, id`: the rows of the children of `count` parents, grouped by parent, in order.
    func childrenSQL(count: Int, table: _Table) -> String {
        let key = _quote(foreignKey)
        let placeholders = Array(repeating: "?", count: count).joined(separator: ", ")
        var order = key
        if let orderColumn { order += ", " + _quote(orderColumn) + (relationship.descending ? " DESC" : "") }
        return table.selectSQL + " WHERE \(key) IN (\(placeholders)) ORDER BY \(order), id"
    }
}

/// A collection of one parent model: the key of `Store.state.unsavedCollections`.
struct _CollectionKey: Hashable {
    let parent: ObjectIdentifier
    let relationship: String
}

/// A child row in one relationship: the key of `Store.state.parentOf`.
struct _MemberKey: Hashable {
    let relationship: String
    let child: Int64
}

extension Store {
    // MARK: Setting up

    /// The to-many relationships of `M`'s table: the children's tables are set up, the delete
    /// rules' triggers created (or replaced when a rule changed).
    func setUpToMany<M: PersistentModel>(_ type: M.Type, table: _Table) throws {
        var relations: [_ToMany] = []
        for property in M._$schema.properties {
            guard let relationship = property.relationship else { continue }
            guard let childType = relationship.target as? any PersistentModel.Type else {
                throw StoreError.mapping(.invalidRelationship(
                    model: table.name, property: property.name,
                    problem: "its related type \(relationship.target) must be a PersistentModel (add `extension \(relationship.target): PersistentModel {}`)"))
            }
            func childTable<C: PersistentModel>(_ type: C.Type) throws -> _Table { try self.table(for: type) }
            let child = try childTable(childType)
            relations.append(try toMany(property: property, relationship: relationship, parent: table, child: child, childType: childType))
        }
        guard !relations.isEmpty else { return }
        state.toManyByParent[table.name] = relations
        for relation in relations { state.toManyByChild[relation.childTable, default: []].append(relation) }
        try install(triggers: relations.map { (name: $0.triggerName, sql: $0.triggerSQL) })
    }

    private func toMany<M: PersistentModel>(
        property: ModelProperty<M>, relationship: ModelRelationship, parent: _Table, child: _Table,
        childType: any PersistentModel.Type
    ) throws -> _ToMany {
        func describe<C: PersistentModel>(_: C.Type) throws -> (foreignKey: Int, order: Int?) {
            let schema = C._$schema
            guard let inverse = schema.property(for: relationship.inverse),
                  let foreignKey = child.definition.columns.firstIndex(where: { $0.propertyIndex == inverse.index }),
                  child.columns[foreignKey].relation?.target == M.self
            else {
                throw StoreError.mapping(.invalidRelationship(
                    model: parent.name, property: property.name,
                    problem: "its inverse must be a stored property \(C.self) declares as `@Relationship var \(String(describing: M.self).lowercasedFirst): \(M.self)?`"))
            }
            guard inverse.referencedID != nil else {
                throw StoreError.mapping(.invalidRelationship(
                    model: parent.name, property: property.name,
                    problem: "mark its inverse `@Relationship var \(inverse.name): \(M.self)?`, so that a \(C.self) does not keep its \(M.self) alive: the collection holds its models, and a strong reference back would be a retain cycle"))
            }
            var order: Int?
            if let orderBy = relationship.orderBy {
                guard let ordered = schema.property(for: orderBy),
                      let column = child.definition.columns.firstIndex(where: { $0.propertyIndex == ordered.index })
                else {
                    throw StoreError.mapping(.invalidRelationship(
                        model: parent.name, property: property.name,
                        problem: "its order (orderBy:) must be a stored property of \(C.self)"))
                }
                order = column
            }
            return (foreignKey, order)
        }
        let (foreignKey, order) = try describe(childType)
        return _ToMany(
            parentTable: parent.name, propertyIndex: property.index, name: property.name, relationship: relationship,
            childTable: child.name, childType: childType,
            foreignKeyPosition: foreignKey, foreignKey: child.definition.columns[foreignKey].name,
            orderPosition: order, orderColumn: order.map { child.definition.columns[$0].name })
    }

    /// After a look at the change log found rows of `childTable` changed elsewhere that are not
    /// in memory: the ids of those that now name a live parent in one of its relationships
    /// (they are loaded, and join that parent's collection).
    func newChildren(in set: _ChangeSet) -> [String: [Int64]] {
        var found: [String: [Int64]] = [:]
        // A row not in memory, or one deleted and inserted again under the same id (a new row:
        // its old model is marked deleted first).
        for key in set.externalKeys where state.identity[key] == nil || set.deletedKeys.contains(key) {
            guard let relations = state.toManyByChild[key.table], let values = set.rows[key] else { continue }
            for relation in relations {
                guard case .integer(let parent) = values[relation.foreignKeyPosition],
                      let model = state.identity[_RowKey(table: relation.parentTable, id: parent)],
                      collectionsLoaded(model, relation) else { continue }
                found[key.table, default: []].append(key.id)
                break
            }
        }
        return found
    }

    /// Loads `ids` of each child table (see `newChildren(in:)`): each joins its parent's
    /// collection, with the values `set` read. The row is read again to make its model, and may
    /// hold a later state by then (a change committed after the look, which a later look
    /// brings): the model is given the look's values, so that it agrees with the rest of the
    /// look (a total over the collection never mixes two states), and the later look applies.
    func loadNewChildren(_ children: [String: [Int64]], of set: _ChangeSet, inFlight: [ObjectIdentifier: Set<Int>]) {
        for (table, ids) in children {
            guard let type = state.toManyByChild[table]?.first?.childType,
                  let childTable = state.tablesByName[table] else { continue }
            let loaded: [Int64: AnyObject]
            do {
                loaded = try liveModels(type, ids: ids)
            } catch {
                errorSubject.sendNext(error)
                continue
            }
            for (id, child) in loaded {
                let key = _RowKey(table: table, id: id)
                guard let values = set.rows[key], let model = child as? any Model else { continue }
                state.rowStamps[key] = nil
                reloadRow(model, table: childTable, values: values, inFlight: inFlight)
                placeEverywhere(model, childTable)
            }
        }
    }

    // MARK: Loading

    /// Loads the collections of `model`, a stored parent of `table` loaded from its row, on
    /// their first use (see `ModelRegistrar.loadCollectionsIfNeeded`). When the load fails,
    /// the collections stay empty, the error goes to `errors`, and the next use tries again.
    ///
    /// A parent among those its table's latest fetch made brings the others of its window of
    /// `collectionBatch` whose collections are still unloaded: a list of parents whose
    /// collections are read in turn costs one query per relationship and window, not one per
    /// parent.
    func loadCollectionsOnFirstUse(_ model: AnyObject, _ registrar: borrowing ModelRegistrar, table: _Table) {
        let id = registrar.rowID.load(ordering: .relaxed)
        guard id > 0 else { return }
        // Loaded from now on: the loads below set the collections without coming back here.
        registrar.setPersistence(table.liveHook)
        var parents: [(model: AnyObject, id: Int64)] = [(model, id)]
        if let batch = state.lastFetchedParents[table.name], let position = batch.firstIndex(where: { $0.id == id && $0.model.model === model }) {
            // The batch's window of `collectionBatch` parents that holds this one.
            let start = position / Self.collectionBatch * Self.collectionBatch
            for (other, otherID) in batch[start..<Swift.min(start + Self.collectionBatch, batch.count)] where otherID != id {
                guard let other = other.model else { continue }
                let registrar = table.registrarOf(other)
                if registrar.pointee.hasUnloadedCollections, registrar.pointee.rowID.load(ordering: .relaxed) == otherID {
                    registrar.pointee.setPersistence(table.liveHook)
                    parents.append((other, otherID))
                }
            }
        }
        do {
            try loadCollections(of: parents, table: table)
        } catch {
            // Still waiting (unless deleted meanwhile: a deleted model's collections stay empty).
            for (parent, parentID) in parents {
                let registrar = table.registrarOf(parent)
                if registrar.pointee.rowID.load(ordering: .relaxed) == parentID { registrar.pointee.setPersistence(table.unloadedHook) }
            }
            errorSubject.sendNext(error)
        }
    }

    /// At most how many parents' collections a first use loads together.
    static var collectionBatch: Int { 64 }

    /// Whether `parent` (a model of `relation`'s parent table) has its collections in memory:
    /// a parent whose collections wait for their first use is left alone (its load reads them).
    private func collectionsLoaded(_ parent: AnyObject, _ relation: _ToMany) -> Bool {
        guard let table = state.tablesByName[relation.parentTable] else { return true }
        return !table.registrarOf(parent).pointee.hasUnloadedCollections
    }

    /// Sets the collections of parents just loaded (`parents`, of `table`): the children of all
    /// of them are read with one query per relationship and 500 parents, and loaded (those not
    /// in memory). A child whose parent was changed here and is not committed yet counts where
    /// its model says.
    func loadCollections(of parents: [(model: AnyObject, id: Int64)], table: _Table) throws(StoreError) {
        guard let relations = state.toManyByParent[table.name], !parents.isEmpty else { return }
        state.loadingCollections += 1
        defer { state.loadingCollections -= 1 }
        let wanted = Set(parents.map(\.id))
        for relation in relations {
            guard let childTable = state.tablesByName[relation.childTable] else { continue }
            // The children's rows, read and made into models by one query per 500 parents,
            // grouped by parent and in order; those in memory are reused.
            var childrenByParent: [Int64: [AnyObject]] = [:]
            var start = 0
            while start < parents.count {
                let chunk = parents[start..<Swift.min(start + 500, parents.count)].map { SQLiteValue.integer($0.id) }
                for child in try fetchObjects(relation.childType, sql: relation.childrenSQL(count: chunk.count, table: childTable),
                                              chunk, table: childTable) {
                    // A child in memory counts where its model says (a change not committed yet).
                    if let parent = parentID(of: child, relation, childTable), wanted.contains(parent) {
                        childrenByParent[parent, default: []].append(child)
                    }
                }
                start += 500
            }
            // Changes not committed yet count as the models have them: a child moved here, or
            // moved in the order (then every collection is sorted in memory).
            let (moved, reordered) = pendingChildren(relation)
            var resort: Set<Int64> = reordered ? wanted : []
            for (child, parent) in moved {
                guard let parent, wanted.contains(parent),
                      let model = state.identity[_RowKey(table: relation.childTable, id: child)],
                      !(childrenByParent[parent] ?? []).contains(where: { $0 === model }) else { continue }
                childrenByParent[parent, default: []].append(model)
                resort.insert(parent)
            }
            for (model, id) in parents {
                var children = childrenByParent[id] ?? []
                if resort.contains(id) { sort(&children, relation, childTable) }
                for child in children {
                    // A child already in another live parent's collection (its row moved, and
                    // this load came first) leaves it.
                    let rowID = childTable.registrarOf(child).pointee.rowID.load(ordering: .relaxed)
                    let key = _MemberKey(relationship: relation.triggerName, child: rowID)
                    if let old = state.parentOf[key], old != id { leave(child, parentID: old, relation) }
                    state.parentOf[key] = id
                }
                if children.isEmpty, relation.relationship.read(model).isEmpty { continue }
                setQuietly(model, relation.propertyIndex) { relation.relationship.assign(model, children) }
            }
        }
        pruneMembershipsIfDue()
    }

    /// The live models of the rows `sql` selects (every column of `table`, id first), for a
    /// model type known at run time.
    private func fetchObjects(_ type: any PersistentModel.Type, sql: String, _ arguments: [SQLiteValue], table: _Table) throws(StoreError) -> [AnyObject] {
        func fetch<C: PersistentModel>(_ type: C.Type) throws(StoreError) -> [AnyObject] {
            try _fetch(type, sql: sql, arguments, table: table)
        }
        return try fetch(type)
    }

    /// Forgets the parents of child rows that are no longer in memory, once the index has grown
    /// to twice what it held after the last time (and at least 4,096 entries): an entry is
    /// only needed while its child is live (a child out of memory is in no live collection).
    func pruneMembershipsIfDue() {
        guard state.parentOf.count >= state.parentOfPruneAt else { return }
        var childTables: [String: String] = [:]
        for (table, relations) in state.toManyByChild { for relation in relations { childTables[relation.triggerName] = table } }
        state.parentOf = state.parentOf.filter { key, _ in
            guard let table = childTables[key.relationship] else { return false }
            return state.identity[_RowKey(table: table, id: key.child)] != nil
        }
        state.parentOfPruneAt = Swift.max(4_096, state.parentOf.count * 2)
    }

    /// The children of `relation` whose parent was changed here and is not committed yet (their
    /// ids and the parent their models name), and whether any child's order is.
    private func pendingChildren(_ relation: _ToMany) -> (moved: [(child: Int64, parent: Int64?)], reordered: Bool) {
        guard let childTable = state.tablesByName[relation.childTable] else { return ([], false) }
        let index = childTable.definition.columns[relation.foreignKeyPosition].propertyIndex
        let order = relation.orderPosition.map { childTable.definition.columns[$0].propertyIndex }
        var moved: [(Int64, Int64?)] = []
        var reordered = false
        func look(_ row: _DirtyRow) {
            guard row.key.table == relation.childTable else { return }
            if row.columns.contains(index) { moved.append((row.key.id, parentID(of: row.model, relation, childTable))) }
            if let order, row.columns.contains(order) { reordered = true }
        }
        for row in state.dirty.values { look(row) }
        for rows in state.inFlight.values { for taken in rows { look(taken.row) } }
        return (moved, reordered)
    }

    // MARK: Keeping collections in step

    /// A change to property `column` of a live model, seen by the write-through hook: a user's
    /// change to a collection (returns true: nothing more to do), or to a child's foreign key or
    /// order. Changes the store makes itself (`setQuietly`) are left alone.
    func relationshipChanged(_ model: AnyObject, _ registrar: borrowing ModelRegistrar, column: Int, table: _Table) -> Bool {
        let quiet = !state.suppressed.isEmpty && state.suppressed.contains(_Suppressed(object: ObjectIdentifier(model), column: column))
        if let relation = state.toManyByParent[table.name]?.first(where: { $0.propertyIndex == column }) {
            if quiet {
                state.suppressed.remove(_Suppressed(object: ObjectIdentifier(model), column: column))
            } else {
                collectionChanged(model, relation, parentTable: table)
            }
            return true
        }
        if !quiet, state.toManyByChild[table.name] != nil, registrar.rowID.load(ordering: .relaxed) > 0 {
            childChanged(model, index: column, childTable: table)
        }
        return false
    }

    /// The row id of the parent `child` names in `relation` (its foreign key), or nil.
    func parentID(of child: AnyObject, _ relation: _ToMany, _ childTable: _Table) -> Int64? {
        if case .integer(let id)? = try? childTable.columns[relation.foreignKeyPosition].read(child) { return id }
        return nil
    }

    /// After a change to property `index` of the stored child `child` of `childTable`: if it is
    /// a relationship's foreign key, the child leaves its old parent's collection and joins its
    /// new one's; if it is the order, its parent's collection is sorted again.
    func childChanged(_ child: AnyObject, index: Int, childTable: _Table) {
        guard let relations = state.toManyByChild[childTable.name] else { return }
        for relation in relations {
            let foreignKey = childTable.definition.columns[relation.foreignKeyPosition].propertyIndex
            let order = relation.orderPosition.map { childTable.definition.columns[$0].propertyIndex }
            if index == foreignKey || index == order { place(child, relation, childTable) }
        }
    }

    /// Puts `child` in the collection of the parent its foreign key names in `relation` (if that
    /// parent is live), in order, and takes it out of the one it was in. A child whose row is
    /// deleted (`persistentID` nil) joins no collection.
    func place(_ child: AnyObject, _ relation: _ToMany, _ childTable: _Table) {
        let rowID = childTable.registrarOf(child).pointee.rowID.load(ordering: .relaxed)
        let key = _MemberKey(relationship: relation.triggerName, child: abs(rowID))
        let new = rowID > 0 ? parentID(of: child, relation, childTable) : nil
        if let old = state.parentOf[key], old != new { leave(child, parentID: old, relation) }
        state.parentOf[key] = new
        if state.parentOf.count >= state.parentOfPruneAt { pruneMembershipsIfDue() }
        if let new, let setID = childTable.columns[relation.foreignKeyPosition].setReferenceID {
            // The reference back by id only: one set before the parent was stored holds it
            // strongly, and the parent's collection holds the child (a cycle). A read finds the
            // parent again through the identity map.
            setID(child, new)
        }
        if let new, let parent = state.identity[_RowKey(table: relation.parentTable, id: new)], collectionsLoaded(parent, relation) {
            var children = relation.relationship.read(parent)
            let before = children.map(ObjectIdentifier.init)
            if !children.contains(where: { $0 === child }) { children.append(child) }
            sort(&children, relation, childTable)   // its order may have changed too
            if children.map(ObjectIdentifier.init) != before {
                setQuietly(parent, relation.propertyIndex) { relation.relationship.assign(parent, children) }
            }
        }
    }

    /// Takes `child` out of the collection of the parent row `parentID`, if that parent is live
    /// and holds it.
    private func leave(_ child: AnyObject, parentID: Int64, _ relation: _ToMany) {
        guard let parent = state.identity[_RowKey(table: relation.parentTable, id: parentID)],
              collectionsLoaded(parent, relation) else { return }
        let children = relation.relationship.read(parent)
        if children.contains(where: { $0 === child }) {
            setQuietly(parent, relation.propertyIndex) { relation.relationship.assign(parent, children.filter { $0 !== child }) }
        }
    }

    /// Sorts `children` in the relationship's order: by the order column, as SQLite orders its
    /// values, then by row id.
    private func sort(_ children: inout [AnyObject], _ relation: _ToMany, _ childTable: _Table) {
        let registrarOf = childTable.registrarOf
        func id(_ child: AnyObject) -> Int64 { registrarOf(child).pointee.rowID.load(ordering: .relaxed) }
        guard let order = relation.orderPosition else {
            children.sort { id($0) < id($1) }
            return
        }
        let descending = relation.relationship.descending
        let keyed = children.map { child in (child, (try? childTable.columns[order].read(child)) ?? .null, id(child)) }
        children = keyed.sorted { a, b in
            let ordered = descending ? _sqliteOrder(b.1, a.1) : _sqliteOrder(a.1, b.1)
            if ordered != 0 { return ordered < 0 }
            return a.2 < b.2
        }.map(\.0)
    }

    /// After a user changed the collection `relation` of `parent` (appended, removed, assigned):
    /// each child in it names `parent` as its inverse (a child not stored yet is inserted),
    /// each child taken out names nothing, and the collection is put back in order.
    func collectionChanged(_ parent: AnyObject, _ relation: _ToMany, parentTable: _Table) {
        guard let childTable = state.tablesByName[relation.childTable] else { return }
        let parentID = parentTable.registrarOf(parent).pointee.rowID.load(ordering: .relaxed)
        guard parentID > 0 else { return }
        let children = relation.relationship.read(parent)
        let childSchemaSet = childTable.setRelation(at: relation.foreignKeyPosition)
        // Those that left: every child this store placed in the parent that is not there now.
        let present = Set(children.map(ObjectIdentifier.init))
        for (key, owner) in state.parentOf where key.relationship == relation.triggerName && owner == parentID {
            guard let child = state.identity[_RowKey(table: relation.childTable, id: key.child)],
                  !present.contains(ObjectIdentifier(child)) else { continue }
            childSchemaSet(child, nil)
        }
        var unstored: [AnyObject] = []
        for child in children where self.parentID(of: child, relation, childTable) != parentID {
            childSchemaSet(child, parent)
            if childTable.registrarOf(child).pointee.rowID.load(ordering: .relaxed) == 0 { unstored.append(child) }
        }
        if !unstored.isEmpty {
            do {
                try insertObjects(unstored, table: childTable)
            } catch {
                // Not dropped: the children stay in the collection, and their insert is tried
                // again at the next commit and by `flush()`, which throws while it fails.
                state.unsavedCollections[_CollectionKey(parent: ObjectIdentifier(parent), relationship: relation.triggerName)] =
                    (_WeakModel(parent), relation)
                errorSubject.sendNext(StoreError.wrap(error))
                scheduleRetry()
            }
        }
        // Only a change is set: a change set while a change is delivered is delivered after it,
        // when it is no longer marked quiet, and comes back here.
        var sorted = relation.relationship.read(parent)
        let before = sorted.map(ObjectIdentifier.init)
        sort(&sorted, relation, childTable)
        if sorted.map(ObjectIdentifier.init) != before {
            setQuietly(parent, relation.propertyIndex) { relation.relationship.assign(parent, sorted) }
        }
    }

    /// Inserts the children appended to collections whose insert failed (see `collectionChanged`);
    /// throws the error of the first that fails again, after trying every collection (they stay
    /// in their collections, to be tried again).
    func insertUnsavedChildren() throws(StoreError) {
        guard !state.unsavedCollections.isEmpty else { return }
        var failure: StoreError?
        for (key, (box, relation)) in state.unsavedCollections {
            guard let parent = box.model, let childTable = state.tablesByName[relation.childTable],
                  parentTableRowID(parent, relation) > 0 else {
                state.unsavedCollections[key] = nil
                continue
            }
            // Never stored (a child deleted meanwhile stays deleted: it is not inserted again).
            let unstored = relation.relationship.read(parent).filter { child in
                childTable.registrarOf(child).pointee.rowID.load(ordering: .relaxed) == 0
            }
            do {
                if !unstored.isEmpty { try insertObjects(unstored, table: childTable) }
                state.unsavedCollections[key] = nil
            } catch {
                if failure == nil { failure = StoreError.wrap(error) }
            }
        }
        if let failure { throw failure }
    }

    /// The children appended to a stored parent's collection whose insert failed (busy,
    /// read-only...) and waits for a retry: changes not written, like the pending rows.
    func unsavedChildren() -> [AnyObject] {
        guard !state.unsavedCollections.isEmpty else { return [] }
        var children: [AnyObject] = []
        for (_, (box, relation)) in state.unsavedCollections {
            guard let parent = box.model, let childTable = state.tablesByName[relation.childTable],
                  parentTableRowID(parent, relation) > 0 else { continue }
            children += relation.relationship.read(parent).filter { child in
                childTable.registrarOf(child).pointee.rowID.load(ordering: .relaxed) == 0
            }
        }
        return children
    }

    /// The row id of a parent of `relation` (0: not stored; negative: deleted).
    private func parentTableRowID(_ parent: AnyObject, _ relation: _ToMany) -> Int64 {
        guard let table = state.tablesByName[relation.parentTable] else { return 0 }
        return table.registrarOf(parent).pointee.rowID.load(ordering: .relaxed)
    }

    /// After `parents` of `table` were inserted: the children in their collections that are not
    /// stored yet are inserted too (naming their parent), and stored ones given this parent.
    /// Each collection is then indexed and sorted once (not once per child).
    func insertChildren(of parents: [AnyObject], table: _Table) throws {
        guard let relations = state.toManyByParent[table.name] else { return }
        for relation in relations {
            guard let childTable = state.tablesByName[relation.childTable] else { continue }
            let set = childTable.setRelation(at: relation.foreignKeyPosition)
            func rowID(_ object: AnyObject, _ table: _Table) -> Int64 {
                table.registrarOf(object).pointee.rowID.load(ordering: .relaxed)
            }
            var unstored: [AnyObject] = []
            for parent in parents {
                let parentID = rowID(parent, table)
                for child in relation.relationship.read(parent) {
                    if self.parentID(of: child, relation, childTable) != parentID { set(child, parent) }
                    if rowID(child, childTable) == 0 { unstored.append(child) }   // never stored
                }
            }
            if !unstored.isEmpty {
                // Indexed and sorted below, once, rather than child by child as they are inserted.
                state.insertingChildren += 1
                defer { state.insertingChildren -= 1 }
                do {
                    try insertObjects(unstored, table: childTable)
                } catch {
                    // The parents are stored; their children are tried again at the next commit
                    // and by `flush()` (see `insertUnsavedChildren`).
                    for parent in parents {
                        state.unsavedCollections[_CollectionKey(parent: ObjectIdentifier(parent), relationship: relation.triggerName)] =
                            (_WeakModel(parent), relation)
                    }
                    scheduleRetry()
                    throw error
                }
            }
            let setID = childTable.columns[relation.foreignKeyPosition].setReferenceID
            for parent in parents {
                let parentID = rowID(parent, table)
                var children = relation.relationship.read(parent)
                for child in children {
                    state.parentOf[_MemberKey(relationship: relation.triggerName, child: rowID(child, childTable))] = parentID
                    setID?(child, parentID)   // by id: no strong reference back (see `place`)
                }
                let before = children.map(ObjectIdentifier.init)
                sort(&children, relation, childTable)
                if children.map(ObjectIdentifier.init) != before {
                    setQuietly(parent, relation.propertyIndex) { relation.relationship.assign(parent, children) }
                }
            }
            pruneMembershipsIfDue()
        }
    }

    /// Runs `body`, which deletes row `id` of `table`; a refusal by a deny rule's trigger becomes
    /// `StoreError.deleteDenied`, naming the rows that block the delete.
    func deleteDenied<R>(by table: _Table, id: Int64, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch {
            guard let sqlite = (error as? SQLiteError) ?? (error as? StoreError)?.sqliteError,
                  sqlite.message.contains(_ToMany.denyMessagePrefix),
                  let denial = denyingChildren(of: table, id: id, message: sqlite.message)
            else { throw error }
            throw StoreError.deleteDenied(
                model: table.definition.modelName, id: id, relationship: denial.relationship, related: denial.child,
                blocking: denial.ids)
        }
    }

    /// Empties the collections of `parent`, a model of `table` whose row is deleted: its
    /// children were deleted with it, or given no parent (or another, elsewhere). A collection
    /// left as it was could hold children of a new row that takes the deleted row's id, since
    /// membership goes by the parent's id.
    func emptyCollections(of parent: AnyObject, table: _Table) {
        guard let relations = state.toManyByParent[table.name] else { return }
        for relation in relations where collectionsLoaded(parent, relation) && !relation.relationship.read(parent).isEmpty {
            setQuietly(parent, relation.propertyIndex) { relation.relationship.assign(parent, []) }
        }
    }

    /// Places `child` (a model of `table`) in each relationship whose children its table holds
    /// (see `place`).
    func placeEverywhere(_ child: AnyObject, _ table: _Table) {
        guard let relations = state.toManyByChild[table.name] else { return }
        for relation in relations { place(child, relation, table) }
    }

    /// The parent rows a deny rule keeps: which relationship refused deleting row `id` of
    /// `table`, and the ids of the children that block it.
    func denyingChildren(of table: _Table, id: Int64, message: String) -> (relationship: String, child: String, ids: [Int64])? {
        guard let relations = state.toManyByParent[table.name] else { return nil }
        for relation in relations where relation.relationship.deleteRule == .deny && message.contains("\(relation.parentTable).\(relation.name)") {
            let sql = "SELECT id FROM \(_quote(relation.childTable)) WHERE \(_quote(relation.foreignKey)) = ? ORDER BY id"
            let ids = (try? writer.sync { connection in
                try connection.rows(sql, [.integer(id)]).compactMap { row -> Int64? in
                    if case .integer(let id)? = row.values.first { return id }
                    return nil
                }
            }) ?? []
            return (relation.name, relation.childTable, ids)
        }
        return nil
    }
}

/// How SQLite orders two values (NULL, then numbers, then text by bytes, then blobs): -1, 0 or 1.
func _sqliteOrder(_ a: SQLiteValue, _ b: SQLiteValue) -> Int {
    func rank(_ value: SQLiteValue) -> Int {
        switch value {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }
    let (ra, rb) = (rank(a), rank(b))
    if ra != rb { return ra < rb ? -1 : 1 }
    switch (a, b) {
    case (.integer(let x), .integer(let y)): return x < y ? -1 : (x > y ? 1 : 0)
    case (.integer(let x), .real(let y)): return Double(x) < y ? -1 : (Double(x) > y ? 1 : 0)
    case (.real(let x), .integer(let y)): return x < Double(y) ? -1 : (x > Double(y) ? 1 : 0)
    case (.real(let x), .real(let y)): return x < y ? -1 : (x > y ? 1 : 0)
    case (.text(let x), .text(let y)):
        if x == y { return 0 }
        return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
    case (.blob(let x), .blob(let y)):
        if x == y { return 0 }
        return x.lexicographicallyPrecedes(y) ? -1 : 1
    default: return 0
    }
}

extension String {
    /// The string with its first letter lowercased (`Invoice` → `invoice`).
    var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}
