import Observation
import Tether

// What `@Model` generates, written by hand, so the runtime is tested independently of the macro.
// (ModelMacroIntegrationTests checks that the real macro produces models that behave the same.)

final class HandInvoice: Tether.Model {
    var quantity: Int {
        @storageRestrictions(initializes: _quantity)
        init(initialValue) { _quantity = initialValue }
        get {
            _$registrar.access(self, index: 0, \.quantity)
            return _quantity
        }
        set {
            guard _$registrar.willSet(self, index: 0, from: _quantity, to: newValue, \.quantity) else {
                _quantity = newValue
                return
            }
            _quantity = newValue
            _$registrar.didSet(self, index: 0, to: newValue, \.quantity)
        }
    }
    private var _quantity: Int = 1

    var unitPrice: Double {
        @storageRestrictions(initializes: _unitPrice)
        init(initialValue) { _unitPrice = initialValue }
        get {
            _$registrar.access(self, index: 1, \.unitPrice)
            return _unitPrice
        }
        set {
            guard _$registrar.willSet(self, index: 1, from: _unitPrice, to: newValue, \.unitPrice) else {
                _unitPrice = newValue
                return
            }
            _unitPrice = newValue
            _$registrar.didSet(self, index: 1, to: newValue, \.unitPrice)
        }
    }
    private var _unitPrice: Double = 0

    var discount: Double? {
        @storageRestrictions(initializes: _discount)
        init(initialValue) { _discount = initialValue }
        get {
            _$registrar.access(self, index: 2, \.discount)
            return _discount
        }
        set {
            guard _$registrar.willSet(self, index: 2, from: _discount, to: newValue, \.discount) else {
                _discount = newValue
                return
            }
            _discount = newValue
            _$registrar.didSet(self, index: 2, to: newValue, \.discount)
        }
    }
    private var _discount: Double? = nil

    var total: Double { Double(quantity) * unitPrice * (1 - (discount ?? 0)) }

    let _$registrar = Tether.ModelRegistrar(propertyCount: 3)
    static let _$schema = Tether.ModelSchema<HandInvoice>(name: "HandInvoice", properties: [
        Tether.ModelProperty(name: "quantity", index: 0, keyPath: \HandInvoice.quantity, transient: false),
        Tether.ModelProperty(name: "unitPrice", index: 1, keyPath: \HandInvoice.unitPrice, transient: false),
        Tether.ModelProperty(name: "discount", index: 2, keyPath: \HandInvoice.discount, transient: false),
    ])

    let onDeinit: (@Sendable () -> Void)?
    init(onDeinit: (@Sendable () -> Void)? = nil) { self.onDeinit = onDeinit }
    deinit { onDeinit?() }
}
