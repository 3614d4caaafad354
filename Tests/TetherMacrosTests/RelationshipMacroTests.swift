import SwiftSyntaxMacrosTestSupport
import XCTest

/// `@Relationship` as `@Model` reads it: a to-many property's schema entry carries its
/// declaration; the reference back gets `_ModelReference` storage and accessors that resolve
/// it; misuse is a diagnostic.
final class RelationshipMacroTests: XCTestCase {
    func testToManyAndReferenceBackSchema() {
        assertMacroExpansion(
            """
            @Model
            final class Invoice {
                @Relationship(inverse: \\Line.invoice, deleteRule: .cascade, orderBy: \\Line.position)
                var lines: [Line] = []
            }
            @Model
            final class Line {
                @Relationship var invoice: Invoice?
            }
            """,
            expandedSource: #"""
            final class Invoice {
                @Relationship(inverse: \Line.invoice, deleteRule: .cascade, orderBy: \Line.position)
                @Tether._ModelTracked(index: 0)
                var lines: [Line] = []

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                static let _$schema = Tether.ModelSchema<Invoice>(name: "Invoice", properties: [
                    Tether.ModelProperty(name: "lines", index: 0, keyPath: \Invoice.lines, transient: false, set: {
                                $0.lines = $1
                            }, storage: {
                                $0._lines
                            }, relationship: Tether._ToMany<Invoice, Line>(inverse: \Line.invoice, deleteRule: .cascade, orderBy: \Line.position)),
                ])
            }
            final class Line {
                @Relationship
                @Tether._ModelTracked(index: 0) var invoice: Invoice?

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                static let _$schema = Tether.ModelSchema<Line>(name: "Line", properties: [
                    Tether.ModelProperty(name: "invoice", index: 0, keyPath: \Line.invoice, transient: false, set: {
                                $0.invoice = $1
                            }, reference: {
                                $0._invoice
                            }, setReference: {
                                $0._invoice.setStoredID($1)
                            }),
                ])
            }

            extension Invoice: Tether.Model {
            }

            extension Line: Tether.Model {
            }
            """#,
            macroSpecs: ["Model": modelMacros()["Model"]!]
        )
    }

    func testReferenceBackStorageAndAccessors() {
        assertMacroExpansion(
            """
            final class Line {
                @Relationship @_ModelTracked(index: 0) var invoice: Invoice? = nil
            }
            """,
            expandedSource: #"""
            final class Line {
                var invoice: Invoice? {
                    @storageRestrictions(initializes: _invoice)
                    init(initialValue) {
                        _invoice = Tether._ModelReference(initialValue)
                    }
                    get {
                        _$registrar.access(self, index: 0, \.invoice)
                        if let target = _invoice.current {
                            Tether._keepWhileObserved(target)
                            return target
                        }
                        let loaded = _invoice.load(_$registrar)
                        if let loaded {
                            _invoice.cache(loaded)
                            Tether._keepWhileObserved(loaded)
                        }
                        return loaded
                    }
                    set {
                        guard _$registrar.willSet(self, index: 0, from: _invoice.current, to: newValue, \.invoice) else {
                            _invoice.assign(newValue)
                            return
                        }
                        _invoice.assign(newValue)
                        _$registrar.didSet(self, index: 0, to: newValue, \.invoice)
                    }
                }

                @Tether.ModelIgnored private var _invoice: Tether._ModelReference<Invoice>
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    func testMisuse() {
        assertMacroExpansion(
            """
            @Model
            final class Invoice {
                @Relationship var lines: [Line] = []
                @Relationship(inverse: \\Invoice.parent) var parent: Invoice?
                @Relationship var count = 0
            }
            """,
            expandedSource: """
            final class Invoice {
                @Relationship var lines: [Line] = []
                @Relationship(inverse: \\Invoice.parent) var parent: Invoice?
                @Relationship var count = 0

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 0)

                static let _$schema = Tether.ModelSchema<Invoice>(name: "Invoice", properties: [])
            }

            extension Invoice: Tether.Model {
            }
            """,
            diagnostics: [
                modelDiagnostic("toManyNeedsInverse", "a to-many relationship needs its inverse: @Relationship(inverse: \\Line.invoice) var lines: [Line] = []", line: 3, column: 5),
                modelDiagnostic("referenceTakesNoArguments", "the inverse and the delete rule go on the to-many side; write @Relationship alone here", line: 4, column: 5),
                modelDiagnostic("relationshipType", "@Relationship needs the property's type written: [Model] for a to-many relationship, Model? for the reference back", line: 5, column: 5),
            ],
            macroSpecs: ["Model": modelMacros()["Model"]!]
        )
    }

    /// A key path of another type than the collection's element, as the inverse or the order,
    /// is said at the argument. (The type checker met it in the generated schema, among every
    /// overload of `ModelProperty`, and Swift 6.3 aborted with "Trail corrupted".) Those it
    /// can only check by type (a property of the element of the wrong type) it checks against
    /// the written generic arguments of `_ToMany`, an ordinary error.
    func testAnInverseOrOrderOfAnotherTypeIsSaidAtTheArgument() {
        assertMacroExpansion(
            """
            @Model
            final class Invoice {
                var number = 0
                @Relationship(inverse: \\Invoice.number) var lines: [Line] = []
                @Relationship(inverse: \\Line.invoice, orderBy: \\Invoice.number) var sorted: [Line] = []
            }
            """,
            expandedSource: """
            final class Invoice {
                @Tether._ModelTracked(index: 0)
                var number = 0
                @Relationship(inverse: \\Invoice.number) var lines: [Line] = []
                @Relationship(inverse: \\Line.invoice, orderBy: \\Invoice.number) var sorted: [Line] = []

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                static let _$schema = Tether.ModelSchema<Invoice>(name: "Invoice", properties: [
                    Tether.ModelProperty(name: "number", index: 0, keyPath: \\Invoice.number, transient: false, set: {
                                $0.number = $1
                            }, storage: {
                                $0._number
                            }),
                ])
            }

            extension Invoice: Tether.Model {
            }
            """,
            diagnostics: [
                modelDiagnostic("inverseOfAnotherType", "the inverse is a property of the collection's element type, the reference back to this class: @Relationship(inverse: \\Line.invoice) var lines: [Line] = []", line: 4, column: 28),
                modelDiagnostic("orderOfAnotherType", "orderBy: orders the collection's elements by one of their properties: @Relationship(inverse: \\Line.invoice, orderBy: \\Line.position) var lines: [Line] = []", line: 5, column: 52),
            ],
            macroSpecs: ["Model": modelMacros()["Model"]!]
        )
    }

    /// In a class isolated to a global actor, the schema reaches the relationship and the
    /// reference's storage through key paths.
    func testMainActorRelationships() {
        assertMacroExpansion(
            """
            @MainActor @Model
            final class Line {
                @Relationship var invoice: Invoice?
            }
            """,
            expandedSource: #"""
            @MainActor
            final class Line {
                @Relationship
                @Tether._ModelTracked(index: 0) var invoice: Invoice?

                @Tether.ModelIgnored nonisolated let _$registrar = Tether.ModelRegistrar(propertyCount: 1, actor: MainActor.shared)

                private static func _$isolatedSchema() -> Tether.ModelSchema<Line> {
                    Tether.ModelSchema<Line>(name: "Line", properties: [
                        Tether.ModelProperty(name: "invoice", index: 0, isolatedKeyPath: \Line.invoice, transient: false, isolatedReference: \Line._invoice),
                        ])
                }

                nonisolated static let _$schema = unsafeBitCast(_$isolatedSchema as @MainActor () -> Tether.ModelSchema<Line>, to: (() -> Tether.ModelSchema<Line>).self)()
            }

            extension Line: Tether.Model {
            }
            """#,
            macroSpecs: ["Model": modelMacros()["Model"]!]
        )
    }
}
