import Observation

/// Makes a final class an observable model: every stored `var` becomes a tracked property
/// that publishes a signal per key path (`observe(model, \.property)`), can be bound
/// (`bind(signal, to: model, \.property)`), takes part in computed-property dependency
/// tracking, and is recorded in the model's schema (for persistence). The class also conforms
/// to `Observation.Observable`.
///
/// ```swift
/// @Model
/// final class Invoice {
///     var customer = ""
///     var quantity = 1
///     var unitPrice = 0.0
///     var discount: Double? = nil
///     @Transient var draftNote = ""          // observable, never persisted
///     var total: Double { Double(quantity) * unitPrice * (1 - (discount ?? 0)) }
/// }
/// ```
///
/// Misuse is a compile-time error with a stable identifier: on a struct, enum, actor or
/// non-final class; a `let`, `lazy`, `weak` or `unowned` stored property; several properties
/// in one declaration; a tracked property with `willSet`/`didSet`.
@attached(member, names: named(_$registrar), named(_$schema), named(_$isolatedSchema))
@attached(memberAttribute)
@attached(extension, conformances: Model)
public macro Model() = #externalMacro(module: "TetherMacros", type: "ModelMacro")

/// Added by `@Model` to each tracked stored property; not for direct use.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _ModelTracked(index: Int) = #externalMacro(module: "TetherMacros", type: "ModelTrackedMacro")

/// Excludes a stored property of a `@Model` class from tracking and from the schema: it is
/// neither observable nor persisted.
///
/// ```swift
/// @Model final class Form { @ModelIgnored var formatter = NumberFormatter() }
/// ```
@attached(peer)
public macro ModelIgnored() = #externalMacro(module: "TetherMacros", type: "ModelIgnoredMacro")

/// Marks a stored property of a `@Model` class as transient: observable like any tracked
/// property, but never persisted.
///
/// ```swift
/// @Model final class Invoice { @Transient var draftNote = "" }
/// ```
@attached(peer)
public macro Transient() = #externalMacro(module: "TetherMacros", type: "TransientMacro")

/// Declares a to-many relationship of a `@Model` class, in the shape SwiftData uses: the
/// collection of the models whose `inverse` refers to this one. A store keeps it live (a model
/// inserted, deleted or given another parent, here or by another process, joins or leaves it),
/// in the order of `orderBy` (then of the row ids), and applies `deleteRule` when this model's
/// row is deleted. Mark the inverse `@Relationship` too (it then refers back without keeping
/// this model alive: the collection holds its models, so a strong reference back would be a
/// retain cycle).
///
/// ```swift
/// @Model final class Invoice {
///     var number = 0
///     @Relationship(inverse: \InvoiceLine.invoice, deleteRule: .cascade, orderBy: \InvoiceLine.position)
///     var lines: [InvoiceLine] = []
///     var total: Int { lines.reduce(0) { $0 + $1.amount } }   // tracked through the lines
/// }
/// @Model final class InvoiceLine {
///     @Relationship var invoice: Invoice?
///     var position = 0
///     var amount = 0
/// }
/// ```
@attached(peer)
public macro Relationship<Root: AnyObject, Target: Model, Order: Comparable>(
    inverse: ReferenceWritableKeyPath<Target, Root?>,
    deleteRule: DeleteRule = .nullify,
    orderBy: KeyPath<Target, Order>,
    descending: Bool = false
) = #externalMacro(module: "TetherMacros", type: "RelationshipMacro")

/// Declares a to-many relationship ordered by row id (see the form with `orderBy:`).
///
/// ```swift
/// @Relationship(inverse: \Invoice.customer, deleteRule: .deny) var invoices: [Invoice] = []
/// ```
@attached(peer)
public macro Relationship<Root: AnyObject, Target: Model>(
    inverse: ReferenceWritableKeyPath<Target, Root?>,
    deleteRule: DeleteRule = .nullify
) = #externalMacro(module: "TetherMacros", type: "RelationshipMacro")

/// Marks the inverse of a to-many relationship: a reference to the model that holds the
/// collection, which does not keep that model alive once it is stored (a read loads it again
/// through the store if it was freed). Before the models are stored it is an ordinary
/// reference.
///
/// ```swift
/// @Model final class InvoiceLine { @Relationship var invoice: Invoice? }
/// ```
@attached(peer)
public macro Relationship() = #externalMacro(module: "TetherMacros", type: "RelationshipMacro")
