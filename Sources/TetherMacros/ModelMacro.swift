import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: turns a final class into an observable model.
///
/// - member role: adds the registrar (`_$registrar`) and the schema (`_$schema`), and reports
///   every misuse (once, here);
/// - memberAttribute role: marks each tracked stored property `@Tether._ModelTracked(index:)`,
///   the index being its position among the tracked properties;
/// - extension role: adds the requested conformances, `Tether.Model` and
///   `Observation.Observable` (the latter spelled out although `Tether.Model` refines it:
///   the compiler does not accept the implied conformance for a macro-requested protocol).
///
/// ```swift
/// @Model
/// final class Invoice {
///     var customer = ""          // becomes @Tether._ModelTracked(index: 0)
///     @Transient var note = ""   // tracked (index 1) but not persisted
///     @ModelIgnored var cache = [String: Int]()
/// }
/// ```
public enum ModelMacro {}

extension ModelMacro: MemberMacro {
    /// Adds `_$registrar` and `_$schema`, and reports every misuse of `@Model` (only here, so
    /// each is reported once). Generates nothing for a non-class or a non-final class.
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass))
            return []
        }
        guard let modelClass = declaration.modelClass else {
            let keyword = classDecl.classKeyword
            let start = keyword.positionAfterSkippingLeadingTrivia
            context.diagnose(
                Diagnostic(
                    node: keyword,
                    message: ModelDiagnostic.nonFinalClass,
                    fixIt: FixIt(
                        message: ModelFixIt.addFinal,
                        changes: [.replaceText(range: start..<start, with: "final ", in: Syntax(keyword))]
                    )
                )
            )
            return []
        }

        let analysis = ModelAnalysis(modelClass)
        for diagnostic in analysis.diagnostics {
            context.diagnose(diagnostic)
        }

        let typeName = modelClass.name.trimmed.text
        let access = modelClass.witnessAccess
        let accessPrefix = access.map { TokenSyntax.keyword($0).text + " " } ?? ""
        let isolated = modelClass.globalActor != nil
        let nonisolatedPrefix = isolated ? "nonisolated " : ""
        let actorArgument = modelClass.globalActor.map { ", actor: \($0).shared" } ?? ""
        let registrarDecl: DeclSyntax =
            "@Tether.ModelIgnored \(raw: accessPrefix)\(raw: nonisolatedPrefix)let _$registrar = Tether.ModelRegistrar(propertyCount: \(raw: analysis.tracked.count)\(raw: actorArgument))"

        let built = schemaExpression(typeName: typeName, properties: analysis.tracked, computed: analysis.computed, isolated: isolated)
        // A class isolated to a global actor: its key paths can only be formed on that actor, so
        // the schema is built by an isolated function, called from the nonisolated `_$schema`
        // through a cast that drops its isolation (as `assumeIsolated` does). This is safe: the
        // function only forms key paths and closures; it reads and writes nothing isolated.
        var isolatedBuilder: DeclSyntax?
        let schema: ExprSyntax
        if let globalActor = modelClass.globalActor {
            let schemaType = "Tether.ModelSchema<\(typeName)>"
            isolatedBuilder = "private static func _$isolatedSchema() -> \(raw: schemaType) {\n\(built)\n}"
            schema = "unsafeBitCast(_$isolatedSchema as @\(raw: globalActor) () -> \(raw: schemaType), to: (() -> \(raw: schemaType)).self)()"
        } else {
            schema = built
        }
        var modifiers = DeclModifierListSyntax()
        if let access {
            modifiers.append(DeclModifierSyntax(name: .keyword(access)))
        }
        if isolated {
            modifiers.append(DeclModifierSyntax(name: .keyword(.nonisolated)))
        }
        modifiers.append(DeclModifierSyntax(name: .keyword(.static)))
        let schemaBinding =
            if modelClass.genericParameterClause == nil {
                PatternBindingSyntax(
                    pattern: IdentifierPatternSyntax(identifier: "_$schema"),
                    initializer: InitializerClauseSyntax(value: schema)
                )
            } else {
                // Static stored properties are not supported in generic types: a generic
                // model builds its schema on each access instead.
                PatternBindingSyntax(
                    pattern: IdentifierPatternSyntax(identifier: "_$schema"),
                    typeAnnotation: TypeAnnotationSyntax(type: "Tether.ModelSchema<\(raw: typeName)>" as TypeSyntax),
                    accessorBlock: AccessorBlockSyntax(accessors: .getter([CodeBlockItemSyntax(item: .expr(schema))]))
                )
            }
        let schemaDecl = DeclSyntax(
            VariableDeclSyntax(
                modifiers: modifiers,
                bindingSpecifier: .keyword(modelClass.genericParameterClause == nil ? .let : .var),
                bindings: [schemaBinding]
            )
        )
        return [registrarDecl] + (isolatedBuilder.map { [$0] } ?? []) + [schemaDecl]
    }
}

extension ModelMacro {
    /// How the schema reads a property's storage: `storage: { $0._name }`; for a to-many
    /// relationship, with `relationship: Tether._ToMany(<the attribute's arguments>)` after it;
    /// for a reference back, `reference: { $0._name }` (its storage is a `_ModelReference`).
    fileprivate static func storageArgument(_ property: TrackedProperty, typeName: String) -> String {
        switch property.relationship {
        case .toMany(let arguments, let element)?:
            // The generic arguments written out: the type checker then checks the key paths
            // against the two types alone, and a wrong one is an ordinary error, not a search
            // through every overload of the schema (which made Swift 6.3 abort).
            return "storage: { $0._\(property.name) }, relationship: Tether._ToMany<\(typeName), \(element)>(\(arguments))"
        case .reference?:
            return "reference: { $0._\(property.name) }, setReference: { $0._\(property.name).setStoredID($1) }"
        case nil:
            return "storage: { $0._\(property.name) }"
        }
    }

    /// For a class isolated to a global actor: `, relationship: Tether._ToMany(isolated: (), ...)`
    /// for a to-many relationship, `, isolatedReference: \Type._name` for a reference back,
    /// nothing otherwise.
    fileprivate static func isolatedRelationshipArgument(_ property: TrackedProperty, typeName: String) -> String {
        switch property.relationship {
        case .toMany(let arguments, let element)?: return ", relationship: Tether._ToMany<\(typeName), \(element)>(isolated: (), \(arguments))"
        case .reference?: return ", isolatedReference: \\\(typeName)._\(property.name)"
        case nil: return ""
        }
    }

    /// `Tether.ModelSchema<Type>(name: "Type", properties: [...])`, one
    /// `Tether.ModelProperty` per line, and `computed: [...]` (one
    /// `Tether.ModelComputedProperty` per line) when the class declares computed properties.
    /// For a class isolated to a global actor (`isolated`), the properties are reached through
    /// their key paths (`isolatedKeyPath:`): a closure in the nonisolated schema could not touch
    /// them.
    fileprivate static func schemaExpression(
        typeName: String,
        properties: [TrackedProperty],
        computed: [ComputedProperty],
        isolated: Bool
    ) -> ExprSyntax {
        let elements = properties.enumerated().map { index, property in
            ArrayElementSyntax(
                leadingTrivia: [.newlines(1), .spaces(4)],
                expression: isolated
                    ? ExprSyntax(
                        """
                        Tether.ModelProperty(name: \(literal: property.name), index: \(literal: index), \
                        isolatedKeyPath: \\\(raw: typeName).\(raw: property.identifier), transient: \(literal: property.isTransient)\
                        \(raw: isolatedRelationshipArgument(property, typeName: typeName)))
                        """
                    )
                    : ExprSyntax(
                        """
                        Tether.ModelProperty(name: \(literal: property.name), index: \(literal: index), \
                        keyPath: \\\(raw: typeName).\(raw: property.identifier), transient: \(literal: property.isTransient), \
                        set: { $0.\(raw: property.identifier) = $1 }, \(raw: storageArgument(property, typeName: typeName)))
                        """
                    ),
                trailingComma: .commaToken()
            )
        }
        // The closing bracket goes on its own line, level with the declaration. An explicit
        // zero-width indentation tells the formatter to keep it there instead of indenting it
        // as an argument of the call.
        let array = ArrayExprSyntax(
            elements: ArrayElementListSyntax(elements),
            rightSquare: .rightSquareToken(leadingTrivia: elements.isEmpty ? [] : [.newlines(1), .spaces(0)])
        )
        var arguments: [LabeledExprSyntax] = [
            LabeledExprSyntax(label: "name", expression: StringLiteralExprSyntax(content: typeName))
                .with(\.trailingComma, .commaToken()),
            LabeledExprSyntax(label: "properties", expression: array),
        ]
        if !computed.isEmpty {
            let getters = computed.map { property in
                ArrayElementSyntax(
                    leadingTrivia: [.newlines(1), .spaces(4)],
                    expression: isolated
                        ? ExprSyntax(
                            """
                            Tether.ModelComputedProperty(name: \(literal: property.name), \
                            isolatedKeyPath: \\\(raw: typeName).\(raw: property.identifier))
                            """
                        )
                        : ExprSyntax(
                            """
                            Tether.ModelComputedProperty(name: \(literal: property.name), \
                            keyPath: \\\(raw: typeName).\(raw: property.identifier), get: { $0.\(raw: property.identifier) })
                            """
                        ),
                    trailingComma: .commaToken()
                )
            }
            arguments[1] = arguments[1].with(\.trailingComma, .commaToken())
            arguments.append(
                LabeledExprSyntax(
                    label: "computed",
                    expression: ArrayExprSyntax(
                        elements: ArrayElementListSyntax(getters),
                        rightSquare: .rightSquareToken(leadingTrivia: [.newlines(1), .spaces(0)])
                    )
                )
            )
        }
        return ExprSyntax(
            FunctionCallExprSyntax(
                calledExpression: "Tether.ModelSchema<\(raw: typeName)>" as ExprSyntax,
                leftParen: .leftParenToken(),
                arguments: LabeledExprListSyntax(arguments),
                rightParen: .rightParenToken()
            )
        )
    }
}

extension ModelMacro: MemberAttributeMacro {
    /// Marks a tracked stored property `@Tether._ModelTracked(index: N)`; other members get
    /// nothing.
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        // Members are matched by name rather than by syntax identity: the compiler may hand
        // the member and the class over as separately parsed trees.
        guard let modelClass = declaration.modelClass,
            case .tracked(let property) = ModelMember(member),
            !property.isAlreadyTracked,
            let index = ModelAnalysis(modelClass).index(of: property.identifier)
        else { return [] }
        return ["@Tether._ModelTracked(index: \(raw: index))"]
    }
}

extension ModelMacro: ExtensionMacro {
    /// Adds `extension Type: Tether.Model, Observation.Observable {}`, limited to the
    /// conformances the compiler requests.
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        // Each requested conformance is spelled out, even `Observable`, which `Tether.Model`
        // refines: with `conformances: Model, Observable` the compiler requests both and
        // rejects `extension T: Tether.Model {}` alone ("type 'T' does not conform to protocol
        // 'Observable'"). `Observation.Observable` must be visible where `@Model` is used,
        // so the `Tether` module is expected to re-export Observation.
        guard declaration.modelClass != nil else { return [] }
        let conformances = protocols.compactMap { requested -> String? in
            switch requested.trimmedDescription {
            case "Model", "Tether.Model": "Tether.Model"
            case "Observable", "Observation.Observable": "Observation.Observable"
            default: nil
            }
        }
        guard !conformances.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: conformances.joined(separator: ", ")) {}")]
    }
}
