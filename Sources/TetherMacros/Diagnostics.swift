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
