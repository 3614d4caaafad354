import Foundation

// Validation: rules a model declares, and the database's constraints, mapped back to the model
// and property that broke them. An invalid change is not written; the model keeps it.

/// A persistent model with rules of its own. Before a change is written (at the end of the
/// store's turn, by `flush()`, or by `insert`), the store asks the model to check its rules;
/// while any fails, the model's changes are not written: they stay pending, the model keeps
/// the values the user gave it, and the store reports `StoreError.invalid` on `errors` (once
/// per new set of failures) and from `flush()` and `insert`.
///
/// ```swift
/// extension Invoice: Validating {
///     func validate(_ rules: inout ValidationRules<Invoice>) {
///         rules.check(\.discount, "between 0 and 100", (0...100).contains(discount ?? 0))
///         rules.check(\.customer, "not empty", !customer.isEmpty)
///     }
/// }
/// ```
public protocol Validating: PersistentModel {
    /// Checks every rule, recording each one that fails.
    func validate(_ rules: inout ValidationRules<Self>)
}

/// The rules a model checked, and which failed (see `Validating`).
public struct ValidationRules<M: Model> {
    /// The rules that failed, in the order they were checked.
    public private(set) var failures: [ValidationError.Failure] = []

    init() {}

    /// Records that the rule named `rule`, on the property at `keyPath`, fails unless `holds`.
    ///
    /// ```swift
    /// rules.check(\.quantity, "at least 1", quantity >= 1)
    /// ```
    public mutating func check<V>(_ keyPath: KeyPath<M, V>, _ rule: String, _ holds: Bool) {
        guard !holds else { return }
        let schema = M._$schema
        let property = schema.name(of: keyPath) ?? schema.describe(keyPath)
        failures.append(ValidationError.Failure(property: property, rule: rule))
    }

    /// Records that the rule named `rule`, on the model as a whole, fails unless `holds`.
    public mutating func check(_ rule: String, _ holds: Bool) {
        guard !holds else { return }
        failures.append(ValidationError.Failure(property: nil, rule: rule))
    }
}

/// A change the store did not write because it breaks a rule: one the model declares
/// (`Validating`), or a constraint of the database (UNIQUE, CHECK, NOT NULL, a foreign key).
public struct ValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One broken rule.
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        /// The property whose value breaks the rule, or nil for the model as a whole (or a
        /// database constraint that names no column).
        public let property: String?
        /// The rule: the model's own words, or the database's constraint ("UNIQUE",
        /// "NOT NULL", "CHECK quantity >= 0", "FOREIGN KEY").
        public let rule: String

        /// A broken rule, on `property` (nil: the model as a whole).
        ///
        /// ```swift
        /// ValidationError.Failure(property: "discount", rule: "between 0 and 100")
        /// ```
        public init(property: String?, rule: String) {
            self.property = property
            self.rule = rule
        }

        /// `discount: between 0 and 100`, or the rule alone.
        public var description: String { property.map { "\($0): \(rule)" } ?? rule }
    }

    /// The model type's name.
    public let model: String
    /// The model's row id, or nil for a model not inserted yet.
    public let id: Int64?
    /// What failed.
    public let failures: [Failure]

    /// The failures of one model (of type `model`, row `id`; nil before it is inserted).
    ///
    /// ```swift
    /// ValidationError(model: "Invoice", id: 3, failures: [.init(property: "discount", rule: "between 0 and 100")])
    /// ```
    public init(model: String, id: Int64?, failures: [Failure]) {
        self.model = model
        self.id = id
        self.failures = failures
    }

    /// Whether `property` breaks a rule (for a form that shows the rule beside the field).
    public func failures(of property: String) -> [Failure] { failures.filter { $0.property == property } }

    /// `Invoice 3: discount: between 0 and 100; customer: not empty`.
    public var description: String {
        "\(model)\(id.map { " \($0)" } ?? ""): " + failures.map(\.description).joined(separator: "; ")
    }
}

extension Store {
    /// The rules `model` breaks now (empty for a valid model, or one that declares none).
    func validationFailures(of model: AnyObject) -> [ValidationError.Failure] {
        guard let validating = model as? any Validating else { return [] }
        return validating._failures()
    }

    /// The validation error of a database constraint that a write of `key`'s row broke, named
    /// with the model and property: SQLite names the column in its message for UNIQUE and NOT
    /// NULL ("UNIQUE constraint failed: Invoice.number"), the constraint for CHECK (its name or
    /// its expression, which names the column it tests), nothing for a foreign key.
    static func constraintFailure(_ error: SQLiteError, table: _Table, id: Int64?) -> ValidationError {
        let model = table.definition.modelName
        let columns = table.definition.columns
        let detail = error.message.split(separator: ":", maxSplits: 1).dropFirst().first.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        func property(named column: Substring) -> String? {
            columns.first { $0.name == column }?.propertyName
        }
        let failure: ValidationError.Failure
        switch error.code {
        case .constraintUnique, .constraintPrimaryKey, .constraintNotNull:
            let rule = error.code == .constraintNotNull ? "NOT NULL" : "UNIQUE"
            // "Invoice.number" (or "Invoice.a, Invoice.b" for a UNIQUE over several columns).
            let named = detail.split(separator: ",").compactMap { $0.split(separator: ".").last.flatMap { property(named: $0.trimmingCharacters(in: .whitespaces)[...]) } }
            failure = ValidationError.Failure(property: named.count == 1 ? named[0] : nil, rule: named.count > 1 ? "\(rule) (\(named.joined(separator: ", ")))" : rule)
        case .constraintCheck:
            let words = detail.split { !($0.isLetter || $0.isNumber || $0 == "_") }
            let mentioned = Set(words.compactMap { property(named: $0) })
            failure = ValidationError.Failure(property: mentioned.count == 1 ? mentioned.first : nil, rule: "CHECK \(detail)")
        case .constraintForeignKey:
            failure = ValidationError.Failure(property: nil, rule: "FOREIGN KEY")
        default:
            failure = ValidationError.Failure(property: nil, rule: error.message)
        }
        return ValidationError(model: model, id: id, failures: [failure])
    }
}

extension Validating {
    /// The rules the model breaks now, in the order it checks them (empty when it is valid):
    /// what the store reports, and why it does not write the model's changes. A form can show
    /// them beside their fields as the user types, before any write.
    ///
    /// ```swift
    /// line.unitPrice = 12
    /// line.brokenRules.map(\.description)   // ["text: describe what was sold"]
    /// ```
    public var brokenRules: [ValidationError.Failure] { _failures() }

    /// The rules this model breaks now.
    func _failures() -> [ValidationError.Failure] {
        var rules = ValidationRules<Self>()
        validate(&rules)
        return rules.failures
    }
}
