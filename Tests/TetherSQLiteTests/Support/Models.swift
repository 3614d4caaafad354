import Foundation
import TetherSQLite

/// The sample model of issue 4 (as in the Tether tests).
@Model
final class Invoice {
    var customer = ""
    var quantity = 1
    var unitPrice = 0.0
    var discount: Double? = nil
    @Transient var draftNote = ""
}

enum ShipmentStatus: String, Codable, CaseIterable {
    case draft, sent, delivered
}

enum Priority: Int {
    case low = 1, high = 2
}

struct Address: Codable, Equatable {
    var street: String
    var city: String
}

/// A model using every kind of mapped type: enums by raw value, Codable as JSON, UUID, Date,
/// optionals, Float, Bool, Data, and a property named with an SQL keyword.
@Model
final class Shipment {
    var status = ShipmentStatus.draft
    var priority: Priority? = nil
    var address = Address(street: "1 Main St", city: "Springfield")
    var tags: [String] = []
    var trackingID: UUID? = nil
    var shippedAt: Date? = nil
    var weight: Float = 0
    var express = false
    var label = Data()
    var order = 0
    var smallCount: Int8 = 0
}

/// Not Codable, not SQLiteConvertible: cannot be stored.
struct Attachment {
    var bytes: [UInt8]
}

@Model
final class Letter {
    var subject = ""
    var attachment = Attachment(bytes: [])
}

@Model
final class Letter2 {
    var subject = ""
    @Transient var attachment = Attachment(bytes: [])
}

/// Invoice, later: two new properties, and `discount` removed.
@Model
final class InvoiceV2 {
    var customer = ""
    var quantity = 1
    var unitPrice = 0.0
    var dueDate: Date? = nil
    var paid = false
    var reference = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
}

/// Invoice with `quantity` changed to text.
@Model
final class InvoiceQuantityAsText {
    var customer = ""
    var quantity = "1"
}

/// Invoice with `quantity` made optional.
@Model
final class InvoiceOptionalQuantity {
    var customer = ""
    var quantity: Int? = 1
}

/// Invoice with `discount` made non-optional.
@Model
final class InvoiceRequiredDiscount {
    var customer = ""
    var discount = 0.0
}

/// A model with a property the mapping reserves.
@Model
final class WithID {
    var id = 0
}

/// A schema for `Root` under another model name (to present a later version of a model).
func renamed<Root>(_ schema: ModelSchema<Root>, to name: String) -> ModelSchema<Root> {
    ModelSchema(name: name, properties: schema.properties)
}

/// A `UInt64` beyond `Int64.max` cannot be stored: SQLite's integers are 64-bit signed.
@Model
final class Meter {
    var name = ""
    var reading: UInt64 = 0
}
extension Meter: PersistentModel {}
