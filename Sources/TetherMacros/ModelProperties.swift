import SwiftDiagnostics
import SwiftSyntax

/// A stored instance property that `@Model` tracks.
struct TrackedProperty {
    /// The identifier as written, backticks included (used in key paths).
    let identifier: String
    /// The identifier without backticks (used in the schema and the storage name).
    let name: String
    /// Whether the property is `@Transient` (tracked, never persisted).
    let isTransient: Bool
    /// Whether the property already carries `@_ModelTracked`.
    let isAlreadyTracked: Bool
    /// What `@Relationship` makes of it, if it carries that attribute.
    var relationship: RelationshipKind? = nil
}

/// What `@Relationship` on a property means, or why it is wrong.
enum RelationshipAnalysis {
    case success(RelationshipKind)
    case failure(Diagnostic)
}

/// A property marked `@Relationship`.
enum RelationshipKind {
    /// `@Relationship(inverse: ...) var lines: [InvoiceLine]`: a to-many collection; the
    /// attribute's arguments and the element type as written.
    case toMany(arguments: String, element: String)
    /// `@Relationship var invoice: Invoice?`: a reference that does not keep its target alive;
    /// the target type as written.
    case reference(target: String)
}

extension VariableDeclSyntax {
    /// The `@Relationship` attribute, if attached.
    var relationshipAttribute: AttributeSyntax? {
        for element in attributes {
            guard case .attribute(let attribute) = element else { continue }
            let name = attribute.attributeName.trimmedDescription
            if name == "Relationship" || name == "Tether.Relationship" { return attribute }
        }
        return nil
    }

    /// What `@Relationship` makes of this property, or a diagnostic saying what is wrong; nil
    /// without the attribute.
    func relationshipKind() -> RelationshipAnalysis? {
        guard let attribute = relationshipAttribute else { return nil }
        let arguments = attribute.arguments?.as(LabeledExprListSyntax.self)
        let type = bindings.first?.typeAnnotation?.type
        if let array = type?.as(ArrayTypeSyntax.self) {
            guard let arguments, arguments.contains(where: { $0.label?.text == "inverse" }) else {
                return .failure(Diagnostic(node: attribute, message: ModelDiagnostic.toManyNeedsInverse))
            }
            // A key path written with its root names the element type: another type is a
            // mistake said here, at the argument (the type checker would meet it deep in the
            // schema `@Model` generates).
            let element = array.element.trimmedDescription
            for argument in arguments {
                guard let label = argument.label?.text, label == "inverse" || label == "orderBy",
                      let root = argument.expression.as(KeyPathExprSyntax.self)?.root?.trimmedDescription,
                      root != element else { continue }
                return .failure(Diagnostic(
                    node: argument.expression,
                    message: label == "inverse" ? ModelDiagnostic.inverseOfAnotherType : ModelDiagnostic.orderOfAnotherType))
            }
            return .success(.toMany(arguments: arguments.trimmedDescription, element: element))
        }
        if let wrapped = type?.optionalWrapped {
            guard arguments == nil || arguments?.isEmpty == true else {
                return .failure(Diagnostic(node: attribute, message: ModelDiagnostic.referenceTakesNoArguments))
            }
            return .success(.reference(target: wrapped.trimmedDescription))
        }
        return .failure(Diagnostic(node: attribute, message: ModelDiagnostic.relationshipType))
    }
}

extension TypeSyntax {
    /// `T` for `T?` or `Optional<T>`, else nil.
    var optionalWrapped: TypeSyntax? {
        if let optional = self.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let identifier = self.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
            let argument = identifier.genericArgumentClause?.arguments.first
        {
            return argument.argument.as(TypeSyntax.self)
        }
        return nil
    }
}

/// A computed instance property declared in the class body: `@Model` records a direct getter
/// for it in the schema, so that observing it calls the getter instead of going through its
/// key path (a generic runtime call).
struct ComputedProperty {
    /// The identifier as written, backticks included.
    let identifier: String
    /// The identifier without backticks.
    let name: String

    /// The computed property declared by `variable`, if `@Model` can record a getter for it: an
    /// instance property with one plain identifier, a type annotation, no attributes (an
    /// availability or actor attribute could make a getter in the schema invalid) and a getter
    /// that neither throws nor is async.
    init?(_ variable: VariableDeclSyntax) {
        guard variable.isComputed,
            !variable.hasModifier(.static), !variable.hasModifier(.class),
            variable.attributes.isEmpty,
            variable.bindings.count == 1,
            let binding = variable.bindings.first,
            binding.typeAnnotation != nil,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier,
            !identifier.text.hasPrefix("_$"),
            let accessors = binding.accessorBlock
        else { return nil }
        if case .accessors(let list) = accessors.accessors,
            list.contains(where: { $0.effectSpecifiers?.asyncSpecifier != nil || $0.effectSpecifiers?.throwsClause != nil })
        {
            return nil
        }
        self.identifier = identifier.trimmed.text
        self.name = identifier.identifier?.name ?? identifier.trimmed.text
    }
}

/// What `@Model` makes of one member of the class.
enum ModelMember {
    /// Not something `@Model` touches: a static or computed property, an `@ModelIgnored`
    /// property, a property `@Model` generated itself, or not a property at all.
    case untouched
    /// A stored instance property that becomes tracked.
    case tracked(TrackedProperty)
    /// A stored instance property that cannot be tracked; the diagnostic says why.
    case invalid(Diagnostic)

    /// Classifies `member`, a member of a `@Model` class.
    init(_ member: some DeclSyntaxProtocol) {
        guard let variable = member.as(VariableDeclSyntax.self) else {
            self = .untouched
            return
        }
        self.init(variable)
    }

    /// Classifies the stored property declaration `variable`.
    init(_ variable: VariableDeclSyntax) {
        if variable.hasModifier(.static) || variable.hasModifier(.class)
            || variable.hasAttribute(named: "ModelIgnored")
            || variable.isComputed
            || variable.bindings.contains(where: { $0.identifier?.hasPrefix("_$") ?? false })
        {
            self = .untouched
            return
        }
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            let specifier = variable.bindingSpecifier
            self = .invalid(
                Diagnostic(
                    node: specifier,
                    message: ModelDiagnostic.letProperty,
                    fixIt: FixIt(
                        message: ModelFixIt.letToVar,
                        changes: [
                            .replace(
                                oldNode: Syntax(specifier),
                                newNode: Syntax(specifier.with(\.tokenKind, .keyword(.var)))
                            )
                        ]
                    )
                )
            )
            return
        }
        if let lazy = variable.modifier(.lazy) {
            self = .invalid(Diagnostic(node: lazy, message: ModelDiagnostic.lazyProperty))
            return
        }
        if let reference = variable.modifier(.weak) ?? variable.modifier(.unowned) {
            self = .invalid(Diagnostic(node: reference, message: ModelDiagnostic.weakProperty))
            return
        }
        let bindings = Array(variable.bindings)
        if bindings.count > 1 {
            self = .invalid(Diagnostic(node: bindings[1], message: ModelDiagnostic.multipleBindings))
            return
        }
        guard let binding = bindings.first else {
            self = .untouched
            return
        }
        if binding.pattern.is(TuplePatternSyntax.self) {
            self = .invalid(Diagnostic(node: binding.pattern, message: ModelDiagnostic.multipleBindings))
            return
        }
        guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier else {
            self = .untouched
            return
        }
        if let observer = binding.accessorBlock?.firstObserver {
            self = .invalid(Diagnostic(node: observer, message: ModelDiagnostic.propertyObservers))
            return
        }
        var property = TrackedProperty(
            identifier: identifier.trimmed.text,
            name: identifier.identifier?.name ?? identifier.trimmed.text,
            isTransient: variable.hasAttribute(named: "Transient"),
            isAlreadyTracked: variable.hasAttribute(named: "_ModelTracked")
        )
        switch variable.relationshipKind() {
        case .failure(let diagnostic)?:
            self = .invalid(diagnostic)
            return
        case .success(let kind)?: property.relationship = kind
        case nil: break
        }
        self = .tracked(property)
    }
}

/// The outcome of examining every member of a `@Model` class.
struct ModelAnalysis {
    /// The tracked properties in declaration order; a property's position is its index.
    var tracked: [TrackedProperty] = []
    /// One diagnostic per member that cannot be tracked.
    var diagnostics: [Diagnostic] = []
    /// The computed properties whose getters the schema records, in declaration order.
    var computed: [ComputedProperty] = []

    /// Examines the direct members of `declaration`.
    init(_ declaration: some DeclGroupSyntax) {
        for item in declaration.memberBlock.members {
            if let variable = item.decl.as(VariableDeclSyntax.self), let property = ComputedProperty(variable) {
                computed.append(property)
            }
            switch ModelMember(item.decl) {
            case .untouched: break
            case .tracked(let property): tracked.append(property)
            case .invalid(let diagnostic): diagnostics.append(diagnostic)
            }
        }
    }

    /// The index of the tracked property spelled `identifier`, if it is tracked.
    func index(of identifier: String) -> Int? {
        tracked.firstIndex { $0.identifier == identifier }
    }
}

extension DeclGroupSyntax {
    /// The declaration as a class that `@Model` can expand, or `nil` if it is not a final class.
    var modelClass: ClassDeclSyntax? {
        guard let classDecl = self.as(ClassDeclSyntax.self),
            classDecl.modifiers.contains(where: { $0.name.tokenKind == .keyword(.final) })
        else { return nil }
        return classDecl
    }
}

extension ClassDeclSyntax {
    /// The global actor the class is isolated to, as written: `MainActor` for `@MainActor`, or
    /// the name of another attribute named like a global actor (`@DatabaseActor`,
    /// `@Storage.WriterActor`). Its stored properties are then isolated, and the members
    /// `@Model` adds are declared `nonisolated` (the registrar is `Sendable`; the schema reaches
    /// the properties through key paths, which Tether applies only where the model belongs).
    var globalActor: String? {
        for element in attributes {
            guard case .attribute(let attribute) = element else { continue }
            let name = attribute.attributeName.trimmedDescription
            if name.hasSuffix("Actor"), name != "Actor" { return name }
        }
        return nil
    }

    /// The access level that members satisfying a requirement of the public protocol
    /// `Tether.Model` need: `public` for a public or open class, `package` for a package
    /// class, `nil` (internal) otherwise.
    var witnessAccess: Keyword? {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return .public
            case .keyword(.package): return .package
            default: continue
            }
        }
        return nil
    }
}

extension VariableDeclSyntax {
    /// The modifier spelled `keyword`, if present.
    func modifier(_ keyword: Keyword) -> DeclModifierSyntax? {
        modifiers.first { $0.name.tokenKind == .keyword(keyword) }
    }

    /// Whether the modifier spelled `keyword` is present.
    func hasModifier(_ keyword: Keyword) -> Bool {
        modifier(keyword) != nil
    }

    /// Whether an attribute named `name` (or `Tether.name`) is attached.
    func hasAttribute(named name: String) -> Bool {
        attributes.contains { element in
            guard case .attribute(let attribute) = element else { return false }
            let type = attribute.attributeName
            if let identifier = type.as(IdentifierTypeSyntax.self) {
                return identifier.name.text == name
            }
            if let member = type.as(MemberTypeSyntax.self),
                member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Tether"
            {
                return member.name.text == name
            }
            return false
        }
    }

    /// Whether the declaration is a computed property (its accessors are not only observers).
    var isComputed: Bool {
        bindings.contains { $0.accessorBlock?.isComputed ?? false }
    }
}

extension PatternBindingSyntax {
    /// The bound identifier as written, if the pattern is a plain identifier.
    var identifier: String? {
        pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmed.text
    }
}

extension AccessorBlockSyntax {
    /// Whether the block makes the property computed: a bare getter, or any accessor other
    /// than `willSet`/`didSet`.
    var isComputed: Bool {
        switch accessors {
        case .getter:
            return true
        case .accessors(let list):
            return list.contains { !$0.isObserver }
        }
    }

    /// The first `willSet` or `didSet` accessor, if any.
    var firstObserver: AccessorDeclSyntax? {
        guard case .accessors(let list) = accessors else { return nil }
        return list.first { $0.isObserver }
    }
}

extension AccessorDeclSyntax {
    /// Whether this is a `willSet` or `didSet` observer.
    var isObserver: Bool {
        switch accessorSpecifier.tokenKind {
        case .keyword(.willSet), .keyword(.didSet): true
        default: false
        }
    }
}
