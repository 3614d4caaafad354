import Foundation

/// One entry of the customer picker: an existing customer, a new one named by what was typed,
/// or no customer.
///
/// ```swift
/// CustomerChoice.choices(for: "ad", among: customers)
/// // [.customer(Ada Lovelace), .new("ad"), .none]
/// ```
public enum CustomerChoice {
    /// A customer of the store.
    case customer(Customer)
    /// A customer to add, with this name.
    case new(String)
    /// The invoice has no customer.
    case none

    /// What the picker shows for the choice.
    public var title: String {
        switch self {
        case .customer(let customer): customer.name.isEmpty ? "(unnamed customer)" : customer.name
        case .new(let name): "New customer \"\(name)\""
        case .none: "(no customer)"
        }
    }

    /// The choices for the text `typed`: the customers whose name contains it (ignoring case
    /// and the spaces around it; a name equal to it first, then names that start with it), a new
    /// customer with that name unless one has it, and no customer.
    public static func choices(for typed: String, among customers: [Customer]) -> [CustomerChoice] {
        let wanted = typed.trimmingCharacters(in: .whitespaces).lowercased()
        func rank(_ customer: Customer) -> Int? {
            let name = customer.name.trimmingCharacters(in: .whitespaces).lowercased()
            if name == wanted { return 0 }
            if name.hasPrefix(wanted) { return 1 }
            return name.contains(wanted) ? 2 : nil
        }
        let matches = customers.compactMap { customer in rank(customer).map { (customer, $0) } }
        var choices = matches.enumerated()
            .sorted { ($0.element.1, $0.offset) < ($1.element.1, $1.offset) }
            .map { CustomerChoice.customer($0.element.0) }
        if !wanted.isEmpty, !matches.contains(where: { $0.1 == 0 }) {
            choices.append(.new(typed.trimmingCharacters(in: .whitespaces)))
        }
        choices.append(.none)
        return choices
    }
}
