import SwiftSyntaxMacrosTestSupport
import XCTest

/// `@Model` misuse: each error's identifier, message, position and fix-its, that it is
/// reported once, and that the offending member is left without `@_ModelTracked` while the
/// rest of the class still expands.
final class ModelDiagnosticsTests: XCTestCase {
    private let notAClass = "@Model can only be applied to a final class"
    private let nonFinalClass = "@Model classes must be final: subclasses could bypass change tracking"
    private let letProperty = "'let' properties cannot be tracked by @Model; use 'var', or mark it @ModelIgnored"
    private let lazyProperty = "lazy properties cannot be tracked by @Model; mark it @ModelIgnored"
    private let weakProperty = "weak and unowned properties cannot be tracked by @Model; mark it @ModelIgnored"
    private let multipleBindings = "declare each tracked property separately"
    private let propertyObservers =
        "tracked properties cannot have willSet/didSet; observe the key path with observe(_:_:) instead"

    func testStruct() {
        assertMacroExpansion(
            """
            @Model
            struct Point {
                var x = 0
            }
            """,
            expandedSource: """
            struct Point {
                var x = 0
            }
            """,
            diagnostics: [modelDiagnostic("notAClass", notAClass, line: 1, column: 1)],
            macroSpecs: modelMacros()
        )
    }

    func testEnumActorAndExtension() {
        assertMacroExpansion(
            """
            @Model
            enum Mode {
                case on
            }
            @Model
            actor Worker {
                var jobs = 0
            }
            @Model
            extension Point {
            }
            """,
            expandedSource: """
            enum Mode {
                case on
            }
            actor Worker {
                var jobs = 0
            }
            extension Point {
            }
            """,
            diagnostics: [
                modelDiagnostic("notAClass", notAClass, line: 1, column: 1),
                modelDiagnostic("notAClass", notAClass, line: 5, column: 1),
                modelDiagnostic("notAClass", notAClass, line: 9, column: 1),
            ],
            macroSpecs: modelMacros()
        )
    }

    /// A non-final class: nothing is generated (a schema of `Invoice` could not witness the
    /// `Self` requirement of a non-final class), and the fix-it inserts `final`.
    func testNonFinalClass() {
        assertMacroExpansion(
            """
            @Model
            class Invoice {
                var customer = ""
            }
            """,
            expandedSource: """
            class Invoice {
                var customer = ""
            }
            """,
            diagnostics: [
                modelDiagnostic("nonFinalClass", nonFinalClass, line: 2, column: 1, fixIts: ["Add 'final'"])
            ],
            macroSpecs: modelMacros(),
            fixedSource: """
            @Model
            final class Invoice {
                var customer = ""
            }
            """
        )
    }

    /// The `final` fix-it goes right before `class`, after the other modifiers.
    func testNonFinalPublicClass() {
        assertMacroExpansion(
            """
            @Model public class Invoice {
            }
            """,
            expandedSource: """
            public class Invoice {
            }
            """,
            diagnostics: [
                modelDiagnostic("nonFinalClass", nonFinalClass, line: 1, column: 15, fixIts: ["Add 'final'"])
            ],
            macroSpecs: modelMacros(),
            fixedSource: """
            @Model public final class Invoice {
            }
            """
        )
    }

    /// A stored `let`: error with a fix-it to `var`; an `@ModelIgnored let` is fine.
    func testLetProperty() {
        assertMacroExpansion(
            """
            @Model
            final class Invoice {
                let id = 1
                @ModelIgnored let createdAt = 0
                var customer = ""
            }
            """,
            expandedSource: #"""
            final class Invoice {
                let id = 1
                let createdAt = 0
                @Tether._ModelTracked(index: 0)
                var customer = ""

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                static let _$schema = Tether.ModelSchema<Invoice>(name: "Invoice", properties: [
                    Tether.ModelProperty(name: "customer", index: 0, keyPath: \Invoice.customer, transient: false, set: {
                                $0.customer = $1
                            }, storage: {
                                $0._customer
                            }),
                ])
            }

            extension Invoice: Tether.Model {
            }
            """#,
            diagnostics: [
                modelDiagnostic("letProperty", letProperty, line: 3, column: 5, fixIts: ["Replace 'let' with 'var'"])
            ],
            macroSpecs: modelMacros(),
            fixedSource: """
            @Model
            final class Invoice {
                var id = 1
                @ModelIgnored let createdAt = 0
                var customer = ""
            }
            """
        )
    }

    /// `lazy`, `weak`, `unowned` and `unowned(unsafe)`: errors at the modifier; the indices of
    /// the tracked properties skip them.
    func testLazyWeakAndUnownedProperties() {
        assertMacroExpansion(
            """
            @Model
            final class Screen {
                lazy var formatter = Formatter()
                weak var delegate: AnyObject?
                unowned var owner: Owner
                unowned(unsafe) var parent: Owner
                @ModelIgnored lazy var cache = Cache()
                var title = ""
            }
            """,
            expandedSource: #"""
            final class Screen {
                lazy var formatter = Formatter()
                weak var delegate: AnyObject?
                unowned var owner: Owner
                unowned(unsafe) var parent: Owner
                lazy var cache = Cache()
                @Tether._ModelTracked(index: 0)
                var title = ""

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                static let _$schema = Tether.ModelSchema<Screen>(name: "Screen", properties: [
                    Tether.ModelProperty(name: "title", index: 0, keyPath: \Screen.title, transient: false, set: {
                                $0.title = $1
                            }, storage: {
                                $0._title
                            }),
                ])
            }

            extension Screen: Tether.Model {
            }
            """#,
            diagnostics: [
                modelDiagnostic("lazyProperty", lazyProperty, line: 3, column: 5),
                modelDiagnostic("weakProperty", weakProperty, line: 4, column: 5),
                modelDiagnostic("weakProperty", weakProperty, line: 5, column: 5),
                modelDiagnostic("weakProperty", weakProperty, line: 6, column: 5),
            ],
            macroSpecs: modelMacros()
        )
    }

    /// Several bindings in one declaration, or a tuple pattern: error at the second binding
    /// (or the tuple).
    func testMultipleBindings() {
        assertMacroExpansion(
            """
            @Model
            final class Pair {
                var a = 1, b = 2
                var (c, d) = (3, 4)
                var e = 5
            }
            """,
            expandedSource: #"""
            final class Pair {
                var a = 1, b = 2
                var (c, d) = (3, 4)
                @Tether._ModelTracked(index: 0)
                var e = 5

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                static let _$schema = Tether.ModelSchema<Pair>(name: "Pair", properties: [
                    Tether.ModelProperty(name: "e", index: 0, keyPath: \Pair.e, transient: false, set: {
                                $0.e = $1
                            }, storage: {
                                $0._e
                            }),
                ])
            }

            extension Pair: Tether.Model {
            }
            """#,
            diagnostics: [
                modelDiagnostic("multipleBindings", multipleBindings, line: 3, column: 16),
                modelDiagnostic("multipleBindings", multipleBindings, line: 4, column: 9),
            ],
            macroSpecs: modelMacros()
        )
    }

    /// `willSet`/`didSet` on a tracked property: error at the first observer. Observers on an
    /// `@ModelIgnored` property are fine.
    func testPropertyObservers() {
        assertMacroExpansion(
            """
            @Model
            final class Counter {
                var count = 0 {
                    didSet { print(count) }
                }
                var limit = 10 {
                    willSet { print(newValue) }
                    didSet { print(limit) }
                }
                @ModelIgnored var log = "" {
                    didSet { print(log) }
                }
            }
            """,
            expandedSource: """
            final class Counter {
                var count = 0 {
                    didSet { print(count) }
                }
                var limit = 10 {
                    willSet { print(newValue) }
                    didSet { print(limit) }
                }
                var log = "" {
                    didSet { print(log) }
                }

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 0)

                static let _$schema = Tether.ModelSchema<Counter>(name: "Counter", properties: [])
            }

            extension Counter: Tether.Model {
            }
            """,
            diagnostics: [
                modelDiagnostic("propertyObservers", propertyObservers, line: 4, column: 9),
                modelDiagnostic("propertyObservers", propertyObservers, line: 7, column: 9),
            ],
            macroSpecs: modelMacros()
        )
    }

    /// Several problems in one class: each is reported once, in declaration order.
    func testEachProblemReportedOnce() {
        assertMacroExpansion(
            """
            @Model
            final class Broken {
                let a = 1
                lazy var b = 2
                var c = 3, d = 4
            }
            """,
            expandedSource: """
            final class Broken {
                let a = 1
                lazy var b = 2
                var c = 3, d = 4

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 0)

                static let _$schema = Tether.ModelSchema<Broken>(name: "Broken", properties: [])
            }

            extension Broken: Tether.Model {
            }
            """,
            diagnostics: [
                modelDiagnostic("letProperty", letProperty, line: 3, column: 5, fixIts: ["Replace 'let' with 'var'"]),
                modelDiagnostic("lazyProperty", lazyProperty, line: 4, column: 5),
                modelDiagnostic("multipleBindings", multipleBindings, line: 5, column: 16),
            ],
            macroSpecs: modelMacros()
        )
    }
}
