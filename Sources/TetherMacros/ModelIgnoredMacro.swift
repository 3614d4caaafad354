import SwiftSyntax
import SwiftSyntaxMacros

/// `@ModelIgnored`: a marker that `@Model` reads to leave a stored property untracked. It
/// expands to nothing.
///
/// ```swift
/// @Model final class Form { @ModelIgnored var cache: [String: Int] = [:] }
/// ```
public enum ModelIgnoredMacro: PeerMacro {
    /// Nothing: the attribute is only read by `@Model`.
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

/// `@Relationship`: a marker that `@Model` reads (see `Tether.Relationship`). It expands to
/// nothing.
public enum RelationshipMacro: PeerMacro {
    /// Nothing: the attribute is only read by `@Model`.
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
