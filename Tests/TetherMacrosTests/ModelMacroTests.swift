import SwiftSyntaxMacrosTestSupport
import XCTest

/// Expansions of `@Model` itself: the member, memberAttribute and extension roles. The
/// `@Tether._ModelTracked` attributes it adds are module-qualified, which the test expander
/// does not resolve, so they stay unexpanded here; `ModelTrackedMacroTests` expands them.
final class ModelMacroTests: XCTestCase {
    /// The integrator's example, in full. `Tether` declares the extension role with
    /// `conformances: Model` only (Model refines Observable), so the compiler requests just
    /// `Model`, and user files need not import Observation.
    func testInvoice() {
        assertMacroExpansion(
            """
            @Model
            final class Invoice {
                var customer = ""
                var quantity: Int = 1
                var discount: Double? = nil
                @Transient var draftNote = ""
                @ModelIgnored var cache: [String: Int] = [:]
                static var shared = 0                      // static: untouched
                var total: Double { Double(quantity) }     // computed: getter in the schema
            }
            """,
            expandedSource: #"""
            final class Invoice {
                @Tether._ModelTracked(index: 0)
                var customer = ""
                @Tether._ModelTracked(index: 1)
                var quantity: Int = 1
                @Tether._ModelTracked(index: 2)
                var discount: Double? = nil
                @Tether._ModelTracked(index: 3) var draftNote = ""
                var cache: [String: Int] = [:]
                static var shared = 0                      // static: untouched
                var total: Double { Double(quantity) }     // computed: getter in the schema

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 4)

                static let _$schema = Tether.ModelSchema<Invoice>(name: "Invoice", properties: [
                    Tether.ModelProperty(name: "customer", index: 0, keyPath: \Invoice.customer, transient: false, set: {
                                $0.customer = $1
                            }, storage: {
                                $0._customer
                            }),
                    Tether.ModelProperty(name: "quantity", index: 1, keyPath: \Invoice.quantity, transient: false, set: {
                                $0.quantity = $1
                            }, storage: {
                                $0._quantity
                            }),
                    Tether.ModelProperty(name: "discount", index: 2, keyPath: \Invoice.discount, transient: false, set: {
                                $0.discount = $1
                            }, storage: {
                                $0._discount
                            }),
                    Tether.ModelProperty(name: "draftNote", index: 3, keyPath: \Invoice.draftNote, transient: true, set: {
                                $0.draftNote = $1
                            }, storage: {
                                $0._draftNote
                            }),
                ], computed: [
                    Tether.ModelComputedProperty(name: "total", keyPath: \Invoice.total, get: {
                                $0.total
                            }),
                ])
            }

            extension Invoice: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// A class isolated to a global actor: the registrar and the schema are `nonisolated`, the
    /// registrar knows the actor, and the schema is built on the actor (where its key paths can
    /// be formed) through a function called without isolation.
    func testMainActorClass() {
        assertMacroExpansion(
            """
            @MainActor @Model
            final class Cart {
                var quantity = 1
                var total: Int { quantity * 2 }
            }
            """,
            expandedSource: #"""
            @MainActor
            final class Cart {
                @Tether._ModelTracked(index: 0)
                var quantity = 1
                var total: Int { quantity * 2 }

                @Tether.ModelIgnored nonisolated let _$registrar = Tether.ModelRegistrar(propertyCount: 1, actor: MainActor.shared)

                private static func _$isolatedSchema() -> Tether.ModelSchema<Cart> {
                    Tether.ModelSchema<Cart>(name: "Cart", properties: [
                        Tether.ModelProperty(name: "quantity", index: 0, isolatedKeyPath: \Cart.quantity, transient: false),
                        ], computed: [
                        Tether.ModelComputedProperty(name: "total", isolatedKeyPath: \Cart.total),
                        ])
                }

                nonisolated static let _$schema = unsafeBitCast(_$isolatedSchema as @MainActor () -> Tether.ModelSchema<Cart>, to: (() -> Tether.ModelSchema<Cart>).self)()
            }

            extension Cart: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// Properties with a type and no initial value, set in an explicit `init`: tracked like
    /// any other (their `init` accessor lets the initializer assign them).
    func testExplicitInit() {
        assertMacroExpansion(
            """
            @Model
            final class Person {
                var name: String
                var age: Int

                init(name: String, age: Int) {
                    self.name = name
                    self.age = age
                }
            }
            """,
            expandedSource: #"""
            final class Person {
                @Tether._ModelTracked(index: 0)
                var name: String
                @Tether._ModelTracked(index: 1)
                var age: Int

                init(name: String, age: Int) {
                    self.name = name
                    self.age = age
                }

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 2)

                static let _$schema = Tether.ModelSchema<Person>(name: "Person", properties: [
                    Tether.ModelProperty(name: "name", index: 0, keyPath: \Person.name, transient: false, set: {
                                $0.name = $1
                            }, storage: {
                                $0._name
                            }),
                    Tether.ModelProperty(name: "age", index: 1, keyPath: \Person.age, transient: false, set: {
                                $0.age = $1
                            }, storage: {
                                $0._age
                            }),
                ])
            }

            extension Person: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// Optional properties, with and without an initial value, and a property whose type is
    /// generic.
    func testOptionalAndGenericTypedProperties() {
        assertMacroExpansion(
            """
            @Model
            final class Tagged {
                var note: String?
                var discount: Double? = nil
                var tags: Set<String> = []
                var scores: [String: [Int]] = [:]
            }
            """,
            expandedSource: #"""
            final class Tagged {
                @Tether._ModelTracked(index: 0)
                var note: String?
                @Tether._ModelTracked(index: 1)
                var discount: Double? = nil
                @Tether._ModelTracked(index: 2)
                var tags: Set<String> = []
                @Tether._ModelTracked(index: 3)
                var scores: [String: [Int]] = [:]

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 4)

                static let _$schema = Tether.ModelSchema<Tagged>(name: "Tagged", properties: [
                    Tether.ModelProperty(name: "note", index: 0, keyPath: \Tagged.note, transient: false, set: {
                                $0.note = $1
                            }, storage: {
                                $0._note
                            }),
                    Tether.ModelProperty(name: "discount", index: 1, keyPath: \Tagged.discount, transient: false, set: {
                                $0.discount = $1
                            }, storage: {
                                $0._discount
                            }),
                    Tether.ModelProperty(name: "tags", index: 2, keyPath: \Tagged.tags, transient: false, set: {
                                $0.tags = $1
                            }, storage: {
                                $0._tags
                            }),
                    Tether.ModelProperty(name: "scores", index: 3, keyPath: \Tagged.scores, transient: false, set: {
                                $0.scores = $1
                            }, storage: {
                                $0._scores
                            }),
                ])
            }

            extension Tagged: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// A public class: `_$registrar` and `_$schema` are public so the conformance to the
    /// public protocol compiles; the tracked properties keep their own access.
    func testPublicClass() {
        assertMacroExpansion(
            """
            @Model
            public final class Account {
                public var owner = ""
                private var secret = 0
            }
            """,
            expandedSource: #"""
            public final class Account {
                @Tether._ModelTracked(index: 0)
                public var owner = ""
                @Tether._ModelTracked(index: 1)
                private var secret = 0

                @Tether.ModelIgnored public let _$registrar = Tether.ModelRegistrar(propertyCount: 2)

                public static let _$schema = Tether.ModelSchema<Account>(name: "Account", properties: [
                    Tether.ModelProperty(name: "owner", index: 0, keyPath: \Account.owner, transient: false, set: {
                                $0.owner = $1
                            }, storage: {
                                $0._owner
                            }),
                    Tether.ModelProperty(name: "secret", index: 1, keyPath: \Account.secret, transient: false, set: {
                                $0.secret = $1
                            }, storage: {
                                $0._secret
                            }),
                ])
            }

            extension Account: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// A package class gets `package` members; internal and private classes get none.
    func testPackageAndInternalClasses() {
        assertMacroExpansion(
            """
            @Model
            package final class Shared {
                var value = 0
            }
            @Model
            private final class Hidden {
                var value = 0
            }
            """,
            expandedSource: #"""
            package final class Shared {
                @Tether._ModelTracked(index: 0)
                var value = 0

                @Tether.ModelIgnored package let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                package static let _$schema = Tether.ModelSchema<Shared>(name: "Shared", properties: [
                    Tether.ModelProperty(name: "value", index: 0, keyPath: \Shared.value, transient: false, set: {
                                $0.value = $1
                            }, storage: {
                                $0._value
                            }),
                ])
            }
            private final class Hidden {
                @Tether._ModelTracked(index: 0)
                var value = 0

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                static let _$schema = Tether.ModelSchema<Hidden>(name: "Hidden", properties: [
                    Tether.ModelProperty(name: "value", index: 0, keyPath: \Hidden.value, transient: false, set: {
                                $0.value = $1
                            }, storage: {
                                $0._value
                            }),
                ])
            }

            extension Shared: Tether.Model {
            }

            extension Hidden: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// A class nested in another type: the schema and key paths use the name as written,
    /// which resolves inside the class; the extension uses the qualified type the compiler
    /// passes.
    func testNestedClass() {
        assertMacroExpansion(
            """
            enum Store {
                @Model
                final class Item {
                    var title = ""
                }
            }
            """,
            expandedSource: #"""
            enum Store {
                final class Item {
                    @Tether._ModelTracked(index: 0)
                    var title = ""

                    @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                    static let _$schema = Tether.ModelSchema<Item>(name: "Item", properties: [
                        Tether.ModelProperty(name: "title", index: 0, keyPath: \Item.title, transient: false, set: {
                                    $0.title = $1
                                }, storage: {
                                    $0._title
                                }),
                    ])
                }
            }

            extension Store.Item: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// A generic class cannot have a static stored property: its schema is computed.
    func testGenericClass() {
        assertMacroExpansion(
            """
            @Model
            final class Box<Value> {
                var value: Value

                init(_ value: Value) {
                    self.value = value
                }
            }
            """,
            expandedSource: #"""
            final class Box<Value> {
                @Tether._ModelTracked(index: 0)
                var value: Value

                init(_ value: Value) {
                    self.value = value
                }

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                static var _$schema: Tether.ModelSchema<Box> {
                    Tether.ModelSchema<Box>(name: "Box", properties: [
                        Tether.ModelProperty(name: "value", index: 0, keyPath: \Box.value, transient: false, set: {
                                    $0.value = $1
                                }, storage: {
                                    $0._value
                                }),
                    ])
                }
            }

            extension Box: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// Computed properties: the schema records a getter for those it can call directly, and
    /// leaves out those with a throwing or async getter, attributes, or `static`.
    func testComputedProperties() {
        assertMacroExpansion(
            #"""
            @Model
            final class Square {
                var side = 1.0
                var area: Double { side * side }
                var perimeter: Double {
                    get { side * 4 }
                    set { side = newValue / 4 }
                }
                var checked: Double { get throws { side } }
                @available(*, deprecated) var old: Double { side }
                static var unit: Double { 1 }
            }
            """#,
            expandedSource: #"""
            final class Square {
                @Tether._ModelTracked(index: 0)
                var side = 1.0
                var area: Double { side * side }
                var perimeter: Double {
                    get { side * 4 }
                    set { side = newValue / 4 }
                }
                var checked: Double { get throws { side } }
                @available(*, deprecated) var old: Double { side }
                static var unit: Double { 1 }

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                static let _$schema = Tether.ModelSchema<Square>(name: "Square", properties: [
                    Tether.ModelProperty(name: "side", index: 0, keyPath: \Square.side, transient: false, set: {
                                $0.side = $1
                            }, storage: {
                                $0._side
                            }),
                ], computed: [
                    Tether.ModelComputedProperty(name: "area", keyPath: \Square.area, get: {
                                $0.area
                            }),
                    Tether.ModelComputedProperty(name: "perimeter", keyPath: \Square.perimeter, get: {
                                $0.perimeter
                            }),
                ])
            }

            extension Square: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// No stored properties: an empty schema.
    func testNoTrackedProperties() {
        assertMacroExpansion(
            """
            @Model
            final class Empty {
                @ModelIgnored let id = 1
                var computed: Int { 1 }
                func method() {}
            }
            """,
            expandedSource: #"""
            final class Empty {
                let id = 1
                var computed: Int { 1 }
                func method() {}

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 0)

                static let _$schema = Tether.ModelSchema<Empty>(name: "Empty", properties: [], computed: [
                    Tether.ModelComputedProperty(name: "computed", keyPath: \Empty.computed, get: {
                                $0.computed
                            }),
                ])
            }

            extension Empty: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// When the compiler requests no conformance (the type already conforms), there is no
    /// extension.
    func testAlreadyConforming() {
        assertMacroExpansion(
            """
            @Model
            final class Counter: Tether.Model {
                var count = 0
            }
            """,
            expandedSource: #"""
            final class Counter: Tether.Model {
                @Tether._ModelTracked(index: 0)
                var count = 0

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                static let _$schema = Tether.ModelSchema<Counter>(name: "Counter", properties: [
                    Tether.ModelProperty(name: "count", index: 0, keyPath: \Counter.count, transient: false, set: {
                                $0.count = $1
                            }, storage: {
                                $0._count
                            }),
                ])
            }
            """#,
            macroSpecs: modelMacros(conformances: [])
        )
    }

    /// Only `Model` requested (the class already declares `Observable`, or the macro is
    /// declared with `conformances: Model` alone): only `Tether.Model` is added.
    func testOnlyModelRequested() {
        assertMacroExpansion(
            """
            @Model
            final class Counter: Observable {
            }
            """,
            expandedSource: """
            final class Counter: Observable {

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 0)

                static let _$schema = Tether.ModelSchema<Counter>(name: "Counter", properties: [])
            }

            extension Counter: Tether.Model {
            }
            """,
            macroSpecs: modelMacros(conformances: ["Model"])
        )
    }

    /// Only `Observable` requested: only it is added, fully qualified.
    func testOnlyObservableRequested() {
        assertMacroExpansion(
            """
            @Model
            final class Counter {
            }
            """,
            expandedSource: """
            final class Counter {

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 0)

                static let _$schema = Tether.ModelSchema<Counter>(name: "Counter", properties: [])
            }

            extension Counter: Observation.Observable {
            }
            """,
            macroSpecs: modelMacros(conformances: ["Observable"])
        )
    }

    /// A property whose name needs backticks keeps them in key paths, not in the schema name.
    func testBacktickedName() {
        assertMacroExpansion(
            """
            @Model
            final class Settings {
                var `default` = false
            }
            """,
            expandedSource: #"""
            final class Settings {
                @Tether._ModelTracked(index: 0)
                var `default` = false

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 1)

                static let _$schema = Tether.ModelSchema<Settings>(name: "Settings", properties: [
                    Tether.ModelProperty(name: "default", index: 0, keyPath: \Settings.`default`, transient: false, set: {
                                $0.`default` = $1
                            }, storage: {
                                $0._default
                            }),
                ])
            }

            extension Settings: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// Attributes spelled with the module name are recognized; a property that is already
    /// `@_ModelTracked` is counted but not marked again; members `@Model` generated itself
    /// (the `_$` names, the `@Tether.ModelIgnored` storage) are left alone.
    func testQualifiedAndExistingAttributes() {
        assertMacroExpansion(
            """
            @Model
            final class Mixed {
                @Tether.ModelIgnored var ignored = 0
                @Tether.Transient var draft = ""
                @Tether._ModelTracked(index: 1) var kept = 0
                @Tether.ModelIgnored private var _kept = 0
                var last = 0
            }
            """,
            expandedSource: #"""
            final class Mixed {
                @Tether.ModelIgnored var ignored = 0
                @Tether.Transient
                @Tether._ModelTracked(index: 0) var draft = ""
                @Tether._ModelTracked(index: 1) var kept = 0
                @Tether.ModelIgnored private var _kept = 0
                @Tether._ModelTracked(index: 2)
                var last = 0

                @Tether.ModelIgnored let _$registrar = Tether.ModelRegistrar(propertyCount: 3)

                static let _$schema = Tether.ModelSchema<Mixed>(name: "Mixed", properties: [
                    Tether.ModelProperty(name: "draft", index: 0, keyPath: \Mixed.draft, transient: true, set: {
                                $0.draft = $1
                            }, storage: {
                                $0._draft
                            }),
                    Tether.ModelProperty(name: "kept", index: 1, keyPath: \Mixed.kept, transient: false, set: {
                                $0.kept = $1
                            }, storage: {
                                $0._kept
                            }),
                    Tether.ModelProperty(name: "last", index: 2, keyPath: \Mixed.last, transient: false, set: {
                                $0.last = $1
                            }, storage: {
                                $0._last
                            }),
                ])
            }

            extension Mixed: Tether.Model {
            }
            """#,
            macroSpecs: modelMacros()
        )
    }
}
