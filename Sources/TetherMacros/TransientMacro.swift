import SwiftSyntax
import SwiftSyntaxMacros

/// `@Transient`: a marker that `@Model` reads to record a tracked property as transient
/// (observable, never persisted). It expands to nothing.
///
/// ```swift
/// @Model final class Invoice { @Transient var draftNote = "" }
/// ```
public enum TransientMacro: PeerMacro {
    /// Nothing: the attribute is only read by `@Model`.
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
