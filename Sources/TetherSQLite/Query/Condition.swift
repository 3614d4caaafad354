/// A condition on the stored properties of a model type, checked by the compiler and rendered
/// into SQL with every value bound as a parameter (never spliced into the SQL): the typed form
/// of a `where:` clause.
///
/// Build one from key paths and values with `==`, `!=`, `<`, `<=`, `>`, `>=`, combine with `&&`,
/// `||` and `!`, or use the named forms (`contains`, `hasPrefix`, `hasSuffix`, `isNil`, `in`).
/// Comparing a property with a value of another type does not compile.
///
/// ```swift
/// let big = try store.fetch(Invoice.self, where: \.quantity > 2 && \.customer == "Ada", orderBy: \.number)
/// let open = store.observe(Invoice.self, where: .hasPrefix(\.customer, "A") || .isNil(\.discount))
/// let count = try store.count(Invoice.self, where: .in(\.status, [.draft, .sent]))
/// ```
///
/// Conditions mean what they mean in Swift, NULL included: equality on an optional property
/// treats `nil` as a value (`\.discount == nil` matches the rows whose column is NULL, and
/// `\.discount != 0.1` matches them too); an ordering comparison (`<`, `>`, ...) is false for
/// nil, so `!(\.discount > 0.1)` matches the nil rows; `in` lists may hold `nil`. `contains`, `hasPrefix` and `hasSuffix` compare
/// characters exactly (case-sensitive), over the whole text: a NUL is a character like any other.
public struct Condition<Root: PersistentModel>: Sendable {
    /// The condition's tree, over property indexes of `Root`'s schema.
    /// `nullable`: the column may hold NULL (an optional property), so the test must be
    /// written to be true or false, never NULL, for `!` to mean what it means in Swift.
    indirect enum Node: Sendable {
        case comparison(property: Int, _ComparisonOperator, SQLiteValue, nullable: Bool)
        case isNull(property: Int, negated: Bool)
        case isIn(property: Int, [SQLiteValue], negated: Bool, nullable: Bool)
        case match(property: Int, _TextMatch, String)
        case and(Node, Node)
        case or(Node, Node)
        case not(Node)
        case constant(Bool)
        /// The property's column (the row id when nil) is among the values a subquery selects
        /// from a related table (a condition through a relationship).
        case related(property: Int?, _Subquery)
        /// A condition that cannot be rendered (a key path that is not a stored column, a value
        /// that cannot be stored): fetching with it throws this error.
        case invalid(StoreError)
    }

    let node: Node

    init(_ node: Node) { self.node = node }

    /// A condition every row meets (`true`) or none does (`false`).
    public static func always(_ value: Bool) -> Condition { Condition(.constant(value)) }

    /// The property's index in `Root`'s schema, or the error for a key path that is not a stored,
    /// persisted property.
    static func property<V>(_ keyPath: KeyPath<Root, V>) -> Result<Int, StoreError> {
        let schema = Root._$schema
        guard let index = schema.index(of: keyPath), !schema.properties[index].isTransient else {
            return .failure(_notStored(keyPath, of: Root.self, use: "compare"))
        }
        return .success(index)
    }

    /// `keyPath`'s property and `value` as SQLite values, or an invalid condition.
    static func make<V: SQLiteConvertible>(
        _ keyPath: KeyPath<Root, V>, _ values: [V], _ build: (Int, [SQLiteValue]) -> Node
    ) -> Condition {
        switch property(keyPath) {
        case .failure(let error):
            return Condition(.invalid(error))
        case .success(let index):
            do {
                return Condition(build(index, try values.map { value throws(SQLiteError) in try value.sqliteValue() }))
            } catch {
                return Condition(.invalid(.sqlite(error)))
            }
        }
    }

    // MARK: Named forms

    /// The property's text contains `text`: exactly (case-sensitive), or ignoring case as
    /// Swift's `lowercased()` does (both are lowered, every script's letters: "ÉMILE" contains
    /// "émi").
    ///
    /// ```swift
    /// store.fetch(Invoice.self, where: .contains(\.customer, "Lovelace"))
    /// store.fetch(Customer.self, where: .contains(\.name, "ada", ignoringCase: true))   // Ada, Adam, Ladakh
    /// ```
    public static func contains(_ keyPath: KeyPath<Root, String>, _ text: String, ignoringCase: Bool = false) -> Condition {
        make(keyPath, []) { index, _ in .match(property: index, ignoringCase ? .containsIgnoringCase : .contains, text) }
    }

    /// The property's text starts with `prefix` (case-sensitive).
    public static func hasPrefix(_ keyPath: KeyPath<Root, String>, _ prefix: String) -> Condition {
        make(keyPath, []) { index, _ in .match(property: index, .prefix, prefix) }
    }

    /// The property's text ends with `suffix` (case-sensitive).
    public static func hasSuffix(_ keyPath: KeyPath<Root, String>, _ suffix: String) -> Condition {
        make(keyPath, []) { index, _ in .match(property: index, .suffix, suffix) }
    }

    /// The optional text contains `text`, as `contains(_:_:ignoringCase:)` says; nil contains
    /// nothing (and `!` of it holds for nil), as `name?.contains(text) == true` in Swift.
    ///
    /// ```swift
    /// store.fetch(Contact.self, where: .contains(\.nickname, "ace"))   // nickname: String?
    /// ```
    public static func contains(_ keyPath: KeyPath<Root, String?>, _ text: String, ignoringCase: Bool = false) -> Condition {
        make(keyPath, [String]()) { index, _ in
            .and(.isNull(property: index, negated: true), .match(property: index, ignoringCase ? .containsIgnoringCase : .contains, text))
        }
    }

    /// The optional text starts with `prefix` (case-sensitive); nil starts with nothing.
    public static func hasPrefix(_ keyPath: KeyPath<Root, String?>, _ prefix: String) -> Condition {
        make(keyPath, [String]()) { index, _ in .and(.isNull(property: index, negated: true), .match(property: index, .prefix, prefix)) }
    }

    /// The optional text ends with `suffix` (case-sensitive); nil ends with nothing.
    public static func hasSuffix(_ keyPath: KeyPath<Root, String?>, _ suffix: String) -> Condition {
        make(keyPath, [String]()) { index, _ in .and(.isNull(property: index, negated: true), .match(property: index, .suffix, suffix)) }
    }

    /// The optional property is nil (its column is NULL).
    ///
    /// ```swift
    /// store.fetch(Invoice.self, where: .isNil(\.discount))
    /// ```
    public static func isNil<V: SQLiteConvertible>(_ keyPath: KeyPath<Root, V?>) -> Condition {
        make(keyPath, []) { index, _ in .isNull(property: index, negated: false) }
    }

    /// The optional property is not nil.
    public static func isNotNil<V: SQLiteConvertible>(_ keyPath: KeyPath<Root, V?>) -> Condition {
        make(keyPath, []) { index, _ in .isNull(property: index, negated: true) }
    }

    /// The property's value is one of `values` (none matches an empty list).
    ///
    /// ```swift
    /// store.fetch(Invoice.self, where: .in(\.number, [1, 2, 3]))
    /// ```
    public static func `in`<V: SQLiteConvertible>(_ keyPath: KeyPath<Root, V>, _ values: [V]) -> Condition {
        make(keyPath, values) { index, values in .isIn(property: index, values, negated: false, nullable: V.sqliteIsNullable) }
    }

    /// The property's value is none of `values` (every row matches an empty list).
    public static func notIn<V: SQLiteConvertible>(_ keyPath: KeyPath<Root, V>, _ values: [V]) -> Condition {
        make(keyPath, values) { index, values in .isIn(property: index, values, negated: true, nullable: V.sqliteIsNullable) }
    }
}

// MARK: - Through relationships

extension Condition {
    /// The to-one relationship at `keyPath` holds a model that meets `condition` (a subquery on
    /// the related table; a nil relationship does not).
    ///
    /// ```swift
    /// store.fetch(Invoice.self, where: \.quantity > 2 && .related(\.customer, \.name == "Ada"))
    /// ```
    public static func related<Target: PersistentModel>(_ keyPath: KeyPath<Root, Target?>, _ condition: Condition<Target>) -> Condition {
        switch property(keyPath) {
        case .failure(let error):
            return Condition(.invalid(error))
        case .success(let index):
            return Condition(.related(property: index, _Subquery(table: Target._$schema.name, select: "id", condition)))
        }
    }

    /// The to-one relationship at `keyPath` is nil, as reading it says: its column is NULL, or
    /// names no row (an id another program wrote). `\.customer == nil` is the same.
    ///
    /// ```swift
    /// store.fetch(Invoice.self, where: .isNil(\.customer))     // the invoices without a customer
    /// ```
    public static func isNil<Target: PersistentModel>(_ keyPath: KeyPath<Root, Target?>) -> Condition {
        !related(keyPath, .always(true))
    }

    /// The to-one relationship at `keyPath` holds a model (`\.customer != nil`).
    public static func isNotNil<Target: PersistentModel>(_ keyPath: KeyPath<Root, Target?>) -> Condition {
        related(keyPath, .always(true))
    }

    /// At least one model of the to-many relationship at `keyPath` meets `condition` (a
    /// subquery on the related table).
    ///
    /// ```swift
    /// store.fetch(Invoice.self, where: .any(\.lines, \.amount > 100))
    /// ```
    public static func any<Target: PersistentModel>(_ keyPath: KeyPath<Root, [Target]>, _ condition: Condition<Target>) -> Condition {
        let schema = Root._$schema
        guard let relationship = schema.property(for: keyPath)?.relationship,
              let inverse = Target._$schema.property(for: relationship.inverse) else {
            return Condition(.invalid(.mapping(.invalidRelationship(
                model: schema.name, property: schema.name(of: keyPath) ?? "(a path through another property)",
                problem: ".any needs a to-many relationship declared with @Relationship(inverse:)"))))
        }
        return Condition(.related(property: nil, _Subquery(table: Target._$schema.name, select: inverse.name + "_id", condition)))
    }
}

/// A subquery of a condition through a relationship: `SELECT select FROM table WHERE ...`, the
/// condition on the related model rendered by the dialect of the outer query.
struct _Subquery: Sendable {
    let table: String
    /// The column selected: the related row's id, or its foreign key back.
    let select: String
    let render: @Sendable (any _SQLDialect, inout [SQLiteValue]) throws(StoreError) -> String

    init<Target: PersistentModel>(table: String, select: String, _ condition: Condition<Target>) {
        self.table = table
        self.select = select
        self.render = { dialect, arguments throws(StoreError) in
            try dialect.render(condition, column: { _columnName(of: Target.self, property: $0) }, arguments: &arguments)
        }
    }
}

/// The column of property `index` of `M`'s table (the property's name; with `_id` for a to-one
/// relationship), or nil for a property with no column.
func _columnName<M: PersistentModel>(of _: M.Type, property index: Int) -> String? {
    let properties = M._$schema.properties
    guard index < properties.count else { return nil }
    let property = properties[index]
    if property.isTransient || property.relationship != nil { return nil }
    return ValueCodec.for(property.valueType)?.relationTarget != nil ? property.name + "_id" : property.name
}

/// A comparison of a column with a value.
enum _ComparisonOperator: Sendable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
}

/// Where a text must occur in a column.
enum _TextMatch: Sendable {
    case contains, prefix, suffix
    /// Contains, both texts lowered as Swift's `lowercased()` lowers them.
    case containsIgnoringCase
}

// MARK: - Operators

/// The property equals `value`.
public func == <M: PersistentModel, V: SQLiteConvertible & Equatable>(keyPath: KeyPath<M, V>, value: V) -> Condition<M> {
    Condition.make(keyPath, [value]) { .comparison(property: $0, .equal, $1[0], nullable: V.sqliteIsNullable) }
}

/// The property differs from `value`.
public func != <M: PersistentModel, V: SQLiteConvertible & Equatable>(keyPath: KeyPath<M, V>, value: V) -> Condition<M> {
    Condition.make(keyPath, [value]) { .comparison(property: $0, .notEqual, $1[0], nullable: V.sqliteIsNullable) }
}

/// The optional property is nil.
public func == <M: PersistentModel, V: SQLiteConvertible>(keyPath: KeyPath<M, V?>, _: _OptionalNilComparisonType) -> Condition<M> {
    .isNil(keyPath)
}

/// The optional property is not nil.
public func != <M: PersistentModel, V: SQLiteConvertible>(keyPath: KeyPath<M, V?>, _: _OptionalNilComparisonType) -> Condition<M> {
    .isNotNil(keyPath)
}

/// The to-one relationship is nil (see `Condition.isNil(_:)`).
///
/// ```swift
/// store.fetch(Invoice.self, where: \.customer == nil)
/// ```
public func == <M: PersistentModel, Target: PersistentModel>(keyPath: KeyPath<M, Target?>, _: _OptionalNilComparisonType) -> Condition<M> {
    .isNil(keyPath)
}

/// The to-one relationship holds a model.
public func != <M: PersistentModel, Target: PersistentModel>(keyPath: KeyPath<M, Target?>, _: _OptionalNilComparisonType) -> Condition<M> {
    .isNotNil(keyPath)
}

/// The property is less than `value`.
public func < <M: PersistentModel, V: SQLiteConvertible & Comparable>(keyPath: KeyPath<M, V>, value: V) -> Condition<M> {
    Condition.make(keyPath, [value]) { .comparison(property: $0, .less, $1[0], nullable: false) }
}

/// The property is less than or equal to `value`.
public func <= <M: PersistentModel, V: SQLiteConvertible & Comparable>(keyPath: KeyPath<M, V>, value: V) -> Condition<M> {
    Condition.make(keyPath, [value]) { .comparison(property: $0, .lessOrEqual, $1[0], nullable: false) }
}

/// The property is greater than `value`.
public func > <M: PersistentModel, V: SQLiteConvertible & Comparable>(keyPath: KeyPath<M, V>, value: V) -> Condition<M> {
    Condition.make(keyPath, [value]) { .comparison(property: $0, .greater, $1[0], nullable: false) }
}

/// The property is greater than or equal to `value`.
public func >= <M: PersistentModel, V: SQLiteConvertible & Comparable>(keyPath: KeyPath<M, V>, value: V) -> Condition<M> {
    Condition.make(keyPath, [value]) { .comparison(property: $0, .greaterOrEqual, $1[0], nullable: false) }
}

/// The optional property is not nil and less than `value` (NULL never compares).
public func < <M: PersistentModel, V: SQLiteConvertible & Comparable>(keyPath: KeyPath<M, V?>, value: V) -> Condition<M> {
    Condition.make(keyPath, [value]) { .comparison(property: $0, .less, $1[0], nullable: true) }
}

/// The optional property is not nil and less than or equal to `value`.
public func <= <M: PersistentModel, V: SQLiteConvertible & Comparable>(keyPath: KeyPath<M, V?>, value: V) -> Condition<M> {
    Condition.make(keyPath, [value]) { .comparison(property: $0, .lessOrEqual, $1[0], nullable: true) }
}

/// The optional property is not nil and greater than `value`.
public func > <M: PersistentModel, V: SQLiteConvertible & Comparable>(keyPath: KeyPath<M, V?>, value: V) -> Condition<M> {
    Condition.make(keyPath, [value]) { .comparison(property: $0, .greater, $1[0], nullable: true) }
}

/// The optional property is not nil and greater than or equal to `value`.
public func >= <M: PersistentModel, V: SQLiteConvertible & Comparable>(keyPath: KeyPath<M, V?>, value: V) -> Condition<M> {
    Condition.make(keyPath, [value]) { .comparison(property: $0, .greaterOrEqual, $1[0], nullable: true) }
}

/// Both conditions hold.
public func && <M>(lhs: Condition<M>, rhs: Condition<M>) -> Condition<M> {
    Condition(.and(lhs.node, rhs.node))
}

/// Either condition holds.
public func || <M>(lhs: Condition<M>, rhs: Condition<M>) -> Condition<M> {
    Condition(.or(lhs.node, rhs.node))
}

/// The condition does not hold.
public prefix func ! <M>(condition: Condition<M>) -> Condition<M> {
    Condition(.not(condition.node))
}

// The `KeyPath<M, V?>` forms compare with a `V`: the same as comparing with `Optional(value)`.
extension Condition {
    static func make<V: SQLiteConvertible>(
        _ keyPath: KeyPath<Root, V?>, _ values: [V], _ build: (Int, [SQLiteValue]) -> Node
    ) -> Condition {
        make(keyPath, values.map { Optional($0) }, build)
    }
}
