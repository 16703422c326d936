import Foundation
internal import HealthModel

/// A measured amount over an interval (HealthKit `HKQuantitySample`).
public final class HKQuantitySample: HKSample, @unchecked Sendable {
    public let quantityType: HKQuantityType
    public let quantity: HKQuantity
    /// One sample is one value here (HealthKit's series samples are not kept).
    public var count: Int { 1 }

    /// Apple raises an exception when the quantity does not fit the type or the end precedes the
    /// start; here the sample is made and saving it fails with ``HKError/Code/errorInvalidArgument``.
    public init(type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date,
                device: HKDevice? = nil, metadata: [String: Any]? = nil) {
        self.quantityType = quantityType
        self.quantity = quantity
        super.init(type: quantityType, start: startDate, end: endDate, uuid: UUID(), metadata: metadata, device: device, source: nil)
    }

    public convenience init(type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date,
                            metadata: [String: Any]?) {
        self.init(type: quantityType, quantity: quantity, start: startDate, end: endDate, device: nil, metadata: metadata)
    }

    init(stored sample: QuantitySample) {
        let type = HKQuantityType.known["HKQuantityTypeIdentifier" + sample.type.healthKitName]!
        quantityType = type
        quantity = HKQuantity(unit: type.canonicalUnit, doubleValue: sample.quantity.value)
        super.init(type: type, start: sample.start, end: sample.end, uuid: sample.id,
                   metadata: MetadataMapping.dictionary(syncIdentifier: sample.syncIdentifier, syncVersion: sample.syncVersion,
                                                        timeZone: sample.timeZone, userEntered: sample.userEntered,
                                                        text: sample.metadata),
                   device: sample.device.map(HKDevice.init), source: sample.source)
    }

    override var problem: String? {
        if let problem = super.problem { return problem }
        if !quantityType.is(compatibleWith: quantity.unit) {
            return "\(quantity.unit.unitString) is not compatible with \(quantityType.identifier) (its unit is \(quantityType.canonicalUnit.unitString))"
        }
        return nil
    }

    /// The sample as the store saves it: its value in the type's canonical unit.
    func model() throws(HKError) -> QuantitySample {
        if let problem { throw HKError(.errorInvalidArgument, problem) }
        let fields = try MetadataMapping(metadata)
        let value = try quantity.doubleValue(checkedFor: quantityType.canonicalUnit)
        return QuantitySample(id: uuid, type: quantityType.model, quantity: Quantity(value, quantityType.model.canonicalUnit),
                              start: startDate, end: endDate, timeZone: fields.timeZone, device: device?.info,
                              syncIdentifier: fields.syncIdentifier, syncVersion: fields.syncVersion,
                              userEntered: fields.userEntered, metadata: fields.text)
    }
}

/// A sample whose value is one of an enumeration (HealthKit `HKCategorySample`).
public final class HKCategorySample: HKSample, @unchecked Sendable {
    public let categoryType: HKCategoryType
    public let value: Int

    public init(type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date,
                device: HKDevice? = nil, metadata: [String: Any]? = nil) {
        categoryType = type
        self.value = value
        super.init(type: type, start: startDate, end: endDate, uuid: UUID(), metadata: metadata, device: device, source: nil)
    }

    public convenience init(type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date, metadata: [String: Any]?) {
        self.init(type: type, value: value, start: startDate, end: endDate, device: nil, metadata: metadata)
    }

    init(stored sample: CategorySample) {
        let type = HKCategoryType.known["HKCategoryTypeIdentifier" + sample.type.healthKitName]!
        categoryType = type
        value = sample.value
        super.init(type: type, start: sample.start, end: sample.end, uuid: sample.id,
                   metadata: MetadataMapping.dictionary(syncIdentifier: sample.syncIdentifier, syncVersion: sample.syncVersion,
                                                        timeZone: sample.timeZone, userEntered: sample.userEntered,
                                                        text: sample.metadata),
                   device: sample.device.map(HKDevice.init), source: sample.source)
    }

    func model() throws(HKError) -> CategorySample {
        if let problem { throw HKError(.errorInvalidArgument, problem) }
        guard categoryType.model.valueNames.indices.contains(value) else {
            throw HKError(.errorInvalidArgument, "\(value) is not a value of \(categoryType.identifier) (0..<\(categoryType.model.valueNames.count))")
        }
        let fields = try MetadataMapping(metadata)
        return CategorySample(id: uuid, type: categoryType.model, value: value, start: startDate, end: endDate,
                              timeZone: fields.timeZone, device: device?.info, syncIdentifier: fields.syncIdentifier,
                              syncVersion: fields.syncVersion, userEntered: fields.userEntered, metadata: fields.text)
    }
}

extension HKSample {
    /// The HealthKit object of a sample read from the store.
    static func wrapping(_ sample: Sample) -> HKSample {
        switch sample {
        case .quantity(let quantity): HKQuantitySample(stored: quantity)
        case .category(let category): HKCategorySample(stored: category)
        }
    }
}
