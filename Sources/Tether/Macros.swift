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
