import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_ModelTracked(index:)`: added by `@Model` to each tracked stored property; not for
/// direct use.
///
/// - accessor role: turns the property into a computed one with an `init` accessor (so it
///   can still be initialized in `init`, or by its initial value), a `get` that reports the
///   access to the registrar and a `set` that brackets the write with `willSet`/`didSet`;
///   the `get` is always inlined: its fast path (no tracking: three loads; inside a computed
///   property's evaluation: the read compared with the last evaluation's) is smaller than a
///   call, and the optimizer, left to itself, kept it out of line once it held the comparison
///   (W5d: 31 instructions more per update);
/// - peer role: adds the private backing storage `_name`, keeping the property's type
///   annotation and initial value.
///
/// ```swift
/// @Tether._ModelTracked(index: 0) var customer = ""
/// // storage: @Tether.ModelIgnored private var _customer = ""
/// ```
public enum ModelTrackedMacro {}

extension ModelTrackedMacro {
    /// The single plain-identifier binding of a stored property, or `nil` when `declaration`
    /// is anything else (which `@Model` never marks).
    fileprivate static func trackedBinding(
        of declaration: some DeclSyntaxProtocol
    ) -> (binding: PatternBindingSyntax, identifier: TokenSyntax)? {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            variable.bindings.count == 1,
            let binding = variable.bindings.first,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier,
            !(binding.accessorBlock?.isComputed ?? false),
            binding.accessorBlock?.firstObserver == nil
        else { return nil }
        return (binding, identifier)
    }

    /// The storage name for `identifier`: `_` followed by the name without backticks.
    fileprivate static func storageName(of identifier: TokenSyntax) -> String {
        "_" + (identifier.identifier?.name ?? identifier.text)
    }
}

extension ModelTrackedMacro: AccessorMacro {
    /// The `init`, `get` and `set` accessors that route the property through its storage
    /// and the registrar.
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let (_, token) = trackedBinding(of: declaration),
            case .argumentList(let arguments) = node.arguments,
            let index = arguments.first(where: { $0.label?.text == "index" })?.expression.trimmed
        else { return [] }
        let storage = storageName(of: token)
        let identifier = token.trimmed
        if let variable = declaration.as(VariableDeclSyntax.self), case .success(.reference)? = variable.relationshipKind() {
            return referenceAccessors(storage: storage, identifier: identifier, index: index)
        }
        let initAccessor: AccessorDeclSyntax = """
            @storageRestrictions(initializes: \(raw: storage))
            init(initialValue) {
                \(raw: storage) = initialValue
            }
            """
        if let variable = declaration.as(VariableDeclSyntax.self), case .success(.toMany)? = variable.relationshipKind() {
            // A stored model's collections are loaded on their first use, read or write.
            return [
                initAccessor,
                """
                get {
                    _$registrar.access(self, index: \(index), \\.\(identifier))
                    _$registrar.loadCollectionsIfNeeded(self)
                    return \(raw: storage)
                }
                """,
                """
                set {
                    _$registrar.loadCollectionsIfNeeded(self)
                    // Those that leave live until the store has seen them go.
                    let old = \(raw: storage)
                    defer { withExtendedLifetime(old) {} }
                    guard _$registrar.willSet(self, index: \(index), from: old, to: newValue, \\.\(identifier)) else {
                        \(raw: storage) = newValue
                        return
                    }
                    \(raw: storage) = newValue
                    _$registrar.didSet(self, index: \(index), to: newValue, \\.\(identifier))
                }
                """,
            ]
        }
        let getAccessor: AccessorDeclSyntax = """
            @inline(__always) get {
                _$registrar.access(self, index: \(index), \\.\(identifier))
                return \(raw: storage)
            }
            """
        let setAccessor: AccessorDeclSyntax = """
            @inline(__always) set {
                guard _$registrar.willSet(self, index: \(index), from: \(raw: storage), to: newValue, \\.\(identifier)) else {
                    \(raw: storage) = newValue
                    return
                }
                \(raw: storage) = newValue
                _$registrar.didSet(self, index: \(index), to: newValue, \\.\(identifier))
            }
            """
        return [initAccessor, getAccessor, setAccessor]
    }
}

extension ModelTrackedMacro {
    /// The accessors of a reference back (`@Relationship var invoice: Invoice?`), whose storage
    /// is a `Tether._ModelReference`: a read loads a stored target that was freed again.
    fileprivate static func referenceAccessors(storage: String, identifier: TokenSyntax, index: ExprSyntax) -> [AccessorDeclSyntax] {
        [
            """
            @storageRestrictions(initializes: \(raw: storage))
            init(initialValue) {
                \(raw: storage) = Tether._ModelReference(initialValue)
            }
            """,
            """
            get {
                _$registrar.access(self, index: \(index), \\.\(identifier))
                if let target = \(raw: storage).current {
                    Tether._keepWhileObserved(target)
                    return target
                }
                let loaded = \(raw: storage).load(_$registrar)
                if let loaded {
                    \(raw: storage).cache(loaded)
                    Tether._keepWhileObserved(loaded)
                }
                return loaded
            }
            """,
            """
            set {
                guard _$registrar.willSet(self, index: \(index), from: \(raw: storage).current, to: newValue, \\.\(identifier)) else {
                    \(raw: storage).assign(newValue)
                    return
                }
                \(raw: storage).assign(newValue)
                _$registrar.didSet(self, index: \(index), to: newValue, \\.\(identifier))
            }
            """,
        ]
    }
}

extension ModelTrackedMacro: PeerMacro {
    /// The private storage `_name`, with the property's type annotation and initial value.
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let (binding, identifier) = trackedBinding(of: declaration) else { return [] }
        if let variable = declaration.as(VariableDeclSyntax.self), case .success(.reference(let target))? = variable.relationshipKind() {
            return ["@Tether.ModelIgnored private var \(raw: storageName(of: identifier)): Tether._ModelReference<\(raw: target)>"]
        }
        let storageBinding = binding
            .with(
                \.pattern,
                PatternSyntax(
                    IdentifierPatternSyntax(
                        identifier: identifier.with(\.tokenKind, .identifier(storageName(of: identifier)))
                    )
                )
            )
            .with(\.accessorBlock, nil)
            .trimmed
        return ["@Tether.ModelIgnored private var \(storageBinding)"]
    }
}
