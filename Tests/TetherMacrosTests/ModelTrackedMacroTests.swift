import SwiftSyntaxMacrosTestSupport
import XCTest

/// Expansions of `@_ModelTracked` (accessors and storage) and of the `@ModelIgnored` and
/// `@Transient` markers. The inputs are what `@Model` leaves in the class, with the attribute
/// spelled unqualified so that the test expander resolves it.
final class ModelTrackedMacroTests: XCTestCase {
    /// The integrator's example after `@Model`: every tracked property becomes computed over
    /// private storage that keeps the initial value; ignored, static and computed properties
    /// are untouched; the markers disappear. (The test expander drops the initial value from a
    /// property that gains `get`/`set`; the storage keeps it.)
    func testInvoiceProperties() {
        assertMacroExpansion(
            """
            final class Invoice {
                @_ModelTracked(index: 0)
                var customer = ""
                @_ModelTracked(index: 1)
                var quantity: Int = 1
                @_ModelTracked(index: 2)
                var discount: Double? = nil
                @Transient @_ModelTracked(index: 3) var draftNote = ""
                @ModelIgnored var cache: [String: Int] = [:]
                static var shared = 0
                var total: Double { Double(quantity) }
            }
            """,
            expandedSource: #"""
            final class Invoice {
                var customer {
                    @storageRestrictions(initializes: _customer)
                    init(initialValue) {
                        _customer = initialValue
                    }
                    @inline(__always) get {
                        _$registrar.access(self, index: 0, \.customer)
                        return _customer
                    }
                    @inline(__always) set {
                        guard _$registrar.willSet(self, index: 0, from: _customer, to: newValue, \.customer) else {
                            _customer = newValue
                            return
                        }
                        _customer = newValue
                        _$registrar.didSet(self, index: 0, to: newValue, \.customer)
                    }
                }

                @Tether.ModelIgnored private var _customer = ""
                var quantity: Int {
                    @storageRestrictions(initializes: _quantity)
                    init(initialValue) {
                        _quantity = initialValue
                    }
                    @inline(__always) get {
                        _$registrar.access(self, index: 1, \.quantity)
                        return _quantity
                    }
                    @inline(__always) set {
                        guard _$registrar.willSet(self, index: 1, from: _quantity, to: newValue, \.quantity) else {
                            _quantity = newValue
                            return
                        }
                        _quantity = newValue
                        _$registrar.didSet(self, index: 1, to: newValue, \.quantity)
                    }
                }

                @Tether.ModelIgnored private var _quantity: Int = 1
                var discount: Double? {
                    @storageRestrictions(initializes: _discount)
                    init(initialValue) {
                        _discount = initialValue
                    }
                    @inline(__always) get {
                        _$registrar.access(self, index: 2, \.discount)
                        return _discount
                    }
                    @inline(__always) set {
                        guard _$registrar.willSet(self, index: 2, from: _discount, to: newValue, \.discount) else {
                            _discount = newValue
                            return
                        }
                        _discount = newValue
                        _$registrar.didSet(self, index: 2, to: newValue, \.discount)
                    }
                }

                @Tether.ModelIgnored private var _discount: Double? = nil
                var draftNote {
                    @storageRestrictions(initializes: _draftNote)
                    init(initialValue) {
                        _draftNote = initialValue
                    }
                    @inline(__always) get {
                        _$registrar.access(self, index: 3, \.draftNote)
                        return _draftNote
                    }
                    @inline(__always) set {
                        guard _$registrar.willSet(self, index: 3, from: _draftNote, to: newValue, \.draftNote) else {
                            _draftNote = newValue
                            return
                        }
                        _draftNote = newValue
                        _$registrar.didSet(self, index: 3, to: newValue, \.draftNote)
                    }
                }

                @Tether.ModelIgnored private var _draftNote = ""
                var cache: [String: Int] = [:]
                static var shared = 0
                var total: Double { Double(quantity) }
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// Properties without an initial value (set in `init`, or an optional left `nil`) still
    /// get the `init` accessor, and their storage keeps the type annotation.
    func testPropertiesWithoutInitialValue() {
        assertMacroExpansion(
            """
            final class Person {
                @_ModelTracked(index: 0) var name: String
                @_ModelTracked(index: 1) var nickname: String?
                @_ModelTracked(index: 2) var tags: Set<String> = []

                init(name: String) {
                    self.name = name
                }
            }
            """,
            expandedSource: #"""
            final class Person {
                var name: String {
                    @storageRestrictions(initializes: _name)
                    init(initialValue) {
                        _name = initialValue
                    }
                    @inline(__always) get {
                        _$registrar.access(self, index: 0, \.name)
                        return _name
                    }
                    @inline(__always) set {
                        guard _$registrar.willSet(self, index: 0, from: _name, to: newValue, \.name) else {
                            _name = newValue
                            return
                        }
                        _name = newValue
                        _$registrar.didSet(self, index: 0, to: newValue, \.name)
                    }
                }

                @Tether.ModelIgnored private var _name: String
                var nickname: String? {
                    @storageRestrictions(initializes: _nickname)
                    init(initialValue) {
                        _nickname = initialValue
                    }
                    @inline(__always) get {
                        _$registrar.access(self, index: 1, \.nickname)
                        return _nickname
                    }
                    @inline(__always) set {
                        guard _$registrar.willSet(self, index: 1, from: _nickname, to: newValue, \.nickname) else {
                            _nickname = newValue
                            return
                        }
                        _nickname = newValue
                        _$registrar.didSet(self, index: 1, to: newValue, \.nickname)
                    }
                }

                @Tether.ModelIgnored private var _nickname: String?
                var tags: Set<String> {
                    @storageRestrictions(initializes: _tags)
                    init(initialValue) {
                        _tags = initialValue
                    }
                    @inline(__always) get {
                        _$registrar.access(self, index: 2, \.tags)
                        return _tags
                    }
                    @inline(__always) set {
                        guard _$registrar.willSet(self, index: 2, from: _tags, to: newValue, \.tags) else {
                            _tags = newValue
                            return
                        }
                        _tags = newValue
                        _$registrar.didSet(self, index: 2, to: newValue, \.tags)
                    }
                }

                @Tether.ModelIgnored private var _tags: Set<String> = []

                init(name: String) {
                    self.name = name
                }
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// A name that needs backticks keeps them in key paths; the storage name drops them.
    func testBacktickedName() {
        assertMacroExpansion(
            """
            final class Settings {
                @_ModelTracked(index: 4) var `default` = false
            }
            """,
            expandedSource: #"""
            final class Settings {
                var `default` {
                    @storageRestrictions(initializes: _default)
                    init(initialValue) {
                        _default = initialValue
                    }
                    @inline(__always) get {
                        _$registrar.access(self, index: 4, \.`default`)
                        return _default
                    }
                    @inline(__always) set {
                        guard _$registrar.willSet(self, index: 4, from: _default, to: newValue, \.`default`) else {
                            _default = newValue
                            return
                        }
                        _default = newValue
                        _$registrar.didSet(self, index: 4, to: newValue, \.`default`)
                    }
                }

                @Tether.ModelIgnored private var _default = false
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// The storage is always private and carries only `@Tether.ModelIgnored`, whatever the
    /// property's own modifiers and attributes.
    func testStorageDropsModifiersAndAttributes() {
        assertMacroExpansion(
            """
            public final class Account {
                @Transient @_ModelTracked(index: 0) public internal(set) var owner: String = "me"
            }
            """,
            expandedSource: #"""
            public final class Account {
                public internal(set) var owner: String {
                    @storageRestrictions(initializes: _owner)
                    init(initialValue) {
                        _owner = initialValue
                    }
                    @inline(__always) get {
                        _$registrar.access(self, index: 0, \.owner)
                        return _owner
                    }
                    @inline(__always) set {
                        guard _$registrar.willSet(self, index: 0, from: _owner, to: newValue, \.owner) else {
                            _owner = newValue
                            return
                        }
                        _owner = newValue
                        _$registrar.didSet(self, index: 0, to: newValue, \.owner)
                    }
                }

                @Tether.ModelIgnored private var _owner: String = "me"
            }
            """#,
            macroSpecs: modelMacros()
        )
    }

    /// `@_ModelTracked` on something `@Model` never marks (a computed property, a property
    /// with observers) generates nothing rather than broken code. (On several bindings the
    /// expander itself rejects attached accessor and peer macros.)
    func testNothingForUntrackableDeclarations() {
        assertMacroExpansion(
            """
            final class Odd {
                @_ModelTracked(index: 0) var total: Int { 1 }
                @_ModelTracked(index: 2) var c = 3 {
                    didSet {}
                }
            }
            """,
            expandedSource: """
            final class Odd {
                var total: Int { 1 }
                var c = 3 {
                    didSet {}
                }
            }
            """,
            macroSpecs: modelMacros()
        )
    }

    /// `@ModelIgnored` and `@Transient` are markers: they expand to nothing.
    func testMarkersExpandToNothing() {
        assertMacroExpansion(
            """
            final class Plain {
                @ModelIgnored var cache = 0
                @Transient var draft = ""
            }
            """,
            expandedSource: """
            final class Plain {
                var cache = 0
                var draft = ""
            }
            """,
            macroSpecs: modelMacros()
        )
    }
}
