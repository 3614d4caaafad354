import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin: it only lists Tether's macros.
@main
struct TetherMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ModelMacro.self,
        ModelTrackedMacro.self,
        ModelIgnoredMacro.self,
        TransientMacro.self,
        RelationshipMacro.self,
    ]
}
