import SwiftDiagnostics
import SwiftSyntax

/// The errors `@Model` reports, each with a stable identifier in the `Tether.Model` domain
/// (the raw value is the identifier, so tools and tests can match on it).
enum ModelDiagnostic: String, DiagnosticMessage {
    /// `@Model` attached to a struct, enum, actor, protocol or extension.
    case notAClass
    /// `@Model` attached to a class that is not `final`.
    case nonFinalClass
    /// A stored `let` instance property that is not `@ModelIgnored`.
    case letProperty
    /// A `lazy var` that would be tracked.
    case lazyProperty
    /// A `weak` or `unowned` property that would be tracked.
    case weakProperty
    /// Several bindings (`var a = 1, b = 2`) or a tuple pattern in one tracked declaration.
    case multipleBindings
    /// A tracked `var` with `willSet`/`didSet` observers.
    case propertyObservers
    /// `@Relationship` on an array without `inverse:`.
    case toManyNeedsInverse
    /// `@Relationship(...)` with arguments on an optional (the reference back).
    case referenceTakesNoArguments
    /// `@Relationship` on a property that is neither an array nor an optional (with its type written).
    case relationshipType
    /// `@Relationship(inverse: \Other.x)` where `Other` is not the collection's element type.
    case inverseOfAnotherType
    /// `@Relationship(orderBy: \Other.x)` where `Other` is not the collection's element type.
    case orderOfAnotherType

    /// The domain shared by all `@Model` diagnostics.
    static let domain = "Tether.Model"

    var message: String {
        switch self {
        case .notAClass:
            "@Model can only be applied to a final class"
        case .nonFinalClass:
            "@Model classes must be final: subclasses could bypass change tracking"
        case .letProperty:
            "'let' properties cannot be tracked by @Model; use 'var', or mark it @ModelIgnored"
        case .lazyProperty:
            "lazy properties cannot be tracked by @Model; mark it @ModelIgnored"
        case .weakProperty:
            "weak and unowned properties cannot be tracked by @Model; mark it @ModelIgnored"
        case .multipleBindings:
            "declare each tracked property separately"
        case .propertyObservers:
            "tracked properties cannot have willSet/didSet; observe the key path with observe(_:_:) instead"
        case .toManyNeedsInverse:
            "a to-many relationship needs its inverse: @Relationship(inverse: \\Line.invoice) var lines: [Line] = []"
        case .referenceTakesNoArguments:
            "the inverse and the delete rule go on the to-many side; write @Relationship alone here"
        case .relationshipType:
            "@Relationship needs the property's type written: [Model] for a to-many relationship, Model? for the reference back"
        case .inverseOfAnotherType:
            "the inverse is a property of the collection's element type, the reference back to this class: @Relationship(inverse: \\Line.invoice) var lines: [Line] = []"
        case .orderOfAnotherType:
            "orderBy: orders the collection's elements by one of their properties: @Relationship(inverse: \\Line.invoice, orderBy: \\Line.position) var lines: [Line] = []"
        }
    }

    var diagnosticID: MessageID {
        MessageID(domain: Self.domain, id: rawValue)
    }

    var severity: DiagnosticSeverity { .error }
}

/// The fix-its offered with `@Model` diagnostics.
enum ModelFixIt: String, FixItMessage {
    /// Inserts `final` before `class`.
    case addFinal
    /// Replaces `let` with `var`.
    case letToVar

    var message: String {
        switch self {
        case .addFinal: "Add 'final'"
        case .letToVar: "Replace 'let' with 'var'"
        }
    }

    var fixItID: MessageID {
        MessageID(domain: ModelDiagnostic.domain, id: rawValue)
    }
}
