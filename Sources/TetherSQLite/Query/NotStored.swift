/// The error for a query that names `keyPath`, a key path of `M` with no column, by the
/// property's name (a key path prints none on Linux) and what it is: what the query does with
/// it (`use`: "compare", "order by", "sum") cannot be done in SQL.
///
/// ```swift
/// try store.fetch(Product.self, where: \.doubled > 2)
/// // Product.doubled is a computed property, so it has no column: a query cannot compare it;
/// // use the stored properties it is computed from
/// ```
func _notStored<M: PersistentModel>(_ keyPath: AnyKeyPath, of _: M.Type, use: String) -> StoreError {
    let schema = M._$schema
    if let stored = schema.property(for: keyPath) {
        if stored.isTransient {
            return .mapping(.notStored(model: schema.name, property: stored.name,
                                       reason: "is @Transient, so it has no column: a query cannot \(use) it"))
        }
        if stored.relationship != nil {
            return .mapping(.notStored(model: schema.name, property: stored.name,
                                       reason: "is a to-many relationship, stored in the related rows: a query cannot \(use) it; use .any(\\.\(stored.name), condition)"))
        }
        return .mapping(.notStored(model: schema.name, property: stored.name, reason: "has no column: a query cannot \(use) it"))
    }
    if let name = schema.name(of: keyPath) {
        return .mapping(.notStored(model: schema.name, property: name,
                                   reason: "is a computed property, so it has no column: a query cannot \(use) it; use the stored properties it is computed from"))
    }
    return .mapping(.notStored(model: schema.name, property: nil,
                               reason: "has no column of \(schema.name)'s: a query cannot \(use) it; for a related model's property, use .related(\\.relationship, condition)"))
}
