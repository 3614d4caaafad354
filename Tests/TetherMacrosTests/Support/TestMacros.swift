import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosTestSupport
import TetherMacros

/// The macros as the `Tether` module declares them. `@Model` is given the conformances the
/// compiler requests (`Model`, as Tether declares it; `Model` refines `Observable`) so that its
/// extension role runs: with `macros:` instead of `macroSpecs:` it would get none.
func modelMacros(conformances: [TypeSyntax] = ["Model"]) -> [String: MacroSpec] {
    [
        "Model": MacroSpec(type: ModelMacro.self, conformances: conformances),
        "_ModelTracked": MacroSpec(type: ModelTrackedMacro.self),
        "ModelIgnored": MacroSpec(type: ModelIgnoredMacro.self),
        "Transient": MacroSpec(type: TransientMacro.self),
        "Relationship": MacroSpec(type: RelationshipMacro.self),
    ]
}

/// A diagnostic `@Model` reports, at `line`:`column` of the test source.
func modelDiagnostic(
    _ id: String,
    _ message: String,
    line: Int,
    column: Int,
    fixIts: [String] = [],
    file: StaticString = #filePath,
    originatorLine testLine: UInt = #line
) -> DiagnosticSpec {
    DiagnosticSpec(
        id: MessageID(domain: "Tether.Model", id: id),
        message: message,
        line: line,
        column: column,
        severity: .error,
        fixIts: fixIts.map { FixItSpec(message: $0, originatorFile: file, originatorLine: testLine) },
        originatorFile: file,
        originatorLine: testLine
    )
}
