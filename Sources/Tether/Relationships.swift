// Relationships between models, as `@Model` records them: a to-many collection with its inverse
// (`@Relationship(inverse: \InvoiceLine.invoice) var lines: [InvoiceLine]`), and the inverse's
// reference back (`@Relationship var invoice: Invoice?`), which does not keep its target alive.
// The store (TetherSQLite) persists and maintains them; here they are descriptions and storage.

/// What deleting a model does to the models of one of its to-many relationships.
///
/// ```swift
/// @Relationship(inverse: \InvoiceLine.invoice, deleteRule: .cascade) var lines: [InvoiceLine] = []
/// ```
public enum DeleteRule: String, Sendable, CustomStringConvertible {
    /// The related models stay, and refer to nothing (their inverse becomes nil).
    case nullify
    /// The related models are deleted with it.
    case cascade
    /// The delete is refused while related models exist (the store throws an error naming them).
    case deny

    public var description: String { rawValue }
}

/// A to-many relationship as the schema records it (type-erased): the related model type, the
/// inverse (the related type's reference back), the delete rule and the order of the collection.
///
/// ```swift
/// let lines = Invoice._$schema.properties[1].relationship!
/// lines.deleteRule   // .cascade
/// ```
public struct ModelRelationship: Sendable {
    /// The related model type (the collection's element type).
    public let target: any Model.Type
    /// The key path of the inverse, a property of `target` (`\InvoiceLine.invoice`).
    public let inverse: AnyKeyPath & Sendable
    /// What deleting the model does to the related models.
    public let deleteRule: DeleteRule
    /// The key path of the property of `target` that orders the collection (then the row id),
    /// or nil for the order of the row ids.
    public let orderBy: (AnyKeyPath & Sendable)?
    /// Whether the order is descending.
    public let descending: Bool
    /// Reads the collection from its storage, as objects (not a tracked read).
    public let read: @Sendable (AnyObject) -> [AnyObject]
    /// Sets the collection (through the property's setter) to models of `target`.
    public let assign: @Sendable (AnyObject, [AnyObject]) -> Void
}

/// The declaration of a to-many relationship of `Root` to `Target` (made by code that `@Model`
/// generates from `@Relationship(inverse:deleteRule:orderBy:descending:)`). The inverse must be
/// a reference back to `Root`, checked by the compiler.
public struct _ToMany<Root: AnyObject, Target: Model>: Sendable {
    let inverse: AnyKeyPath & Sendable
    let deleteRule: DeleteRule
    let orderBy: (AnyKeyPath & Sendable)?
    let descending: Bool

    /// A collection ordered by row id.
    public init(inverse: ReferenceWritableKeyPath<Target, Root?> & Sendable, deleteRule: DeleteRule = .nullify) {
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.orderBy = nil
        self.descending = false
    }

    /// A collection ordered by `orderBy` (then by row id).
    public init<Order: Comparable>(
        inverse: ReferenceWritableKeyPath<Target, Root?> & Sendable,
        deleteRule: DeleteRule = .nullify,
        orderBy: KeyPath<Target, Order> & Sendable,
        descending: Bool = false
    ) {
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.orderBy = orderBy
        self.descending = descending
    }
}

extension _ToMany {
    /// The same, for classes isolated to a global actor, whose key paths are not `Sendable`
    /// (Tether applies them only where the model belongs).
    public init(isolated: Void, inverse: ReferenceWritableKeyPath<Target, Root?>, deleteRule: DeleteRule = .nullify) {
        self.init(inverse: _sendableKeyPath(inverse), deleteRule: deleteRule)
    }

    /// The same, ordered, for classes isolated to a global actor.
    public init<Order: Comparable>(
        isolated: Void,
        inverse: ReferenceWritableKeyPath<Target, Root?>,
        deleteRule: DeleteRule = .nullify,
        orderBy: KeyPath<Target, Order>,
        descending: Bool = false
    ) {
        self.init(inverse: _sendableKeyPath(inverse), deleteRule: deleteRule,
                  orderBy: unsafeBitCast(orderBy, to: (KeyPath<Target, Order> & Sendable).self), descending: descending)
    }
}

/// The storage of a reference to another model that does not keep it alive once it is stored
/// (`@Relationship var invoice: Invoice?`, the inverse of a to-many relationship, whose target
/// holds the collection): it holds a stored target weakly, with its row id, and a target that is
/// not stored yet strongly. A stored target that was freed is loaded again through the store
/// when the property is read. Used by code that `@Model` generates.
public struct _ModelReference<Target: Model> {
    private weak var weakTarget: Target?
    private var strongTarget: Target?
    /// The row id of the target (0: none, or a target that is not stored).
    public private(set) var id: Int64

    public init(_ target: Target?) {
        id = 0
        assign(target)
    }

    /// Refers to `target`: weakly if it is stored, strongly if not.
    public mutating func assign(_ target: Target?) {
        if let target, case let id = target._$registrar.rowID.load(ordering: .relaxed), id > 0 {
            weakTarget = target
            strongTarget = nil
            self.id = id
        } else {
            weakTarget = nil
            strongTarget = target
            id = 0
        }
    }

    /// Refers to the stored row `id` of the target's table, not loaded yet: the first read
    /// loads it (for a model just made from its row, which nobody observes yet).
    public mutating func setStoredID(_ id: Int64) {
        weakTarget = nil
        strongTarget = nil
        self.id = id
    }

    /// The target in memory, without loading it: nil when a stored target was freed, or its
    /// row deleted (the id may be a new row's by now, which a read loads).
    public var current: Target? {
        if let strongTarget { return strongTarget }
        guard let weakTarget, weakTarget._$registrar.rowID.load(ordering: .relaxed) == id else { return nil }
        return weakTarget
    }

    /// The stored target, loaded through the store that holds `registrar`'s model (for a
    /// reference whose target is not in memory: `current` is nil); nil if there is none. Not
    /// mutating: loading may read this reference again (the target's collection holds the
    /// model), so the storage must not be under exclusive access meanwhile. `cache` keeps it.
    public func load(_ registrar: borrowing ModelRegistrar) -> Target? {
        guard id != 0, let hook = registrar.persistence else { return nil }
        return hook.resolve(Target.self, id) as? Target
    }

    /// Keeps `target`, just loaded for this reference's row, weakly.
    public mutating func cache(_ target: Target) {
        if target._$registrar.rowID.load(ordering: .relaxed) == id { weakTarget = target }
    }
}
