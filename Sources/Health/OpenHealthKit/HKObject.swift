import Foundation
internal import HealthModel

/// An app that saves samples (HealthKit `HKSource`): BandKit names apps by their identifier,
/// so ``name`` is the identifier too.
public final class HKSource: Hashable, CustomStringConvertible, @unchecked Sendable {
    public let name: String
    public let bundleIdentifier: String

    init(bundleIdentifier: String) {
        self.bundleIdentifier = bundleIdentifier
        name = bundleIdentifier
    }

    /// The source of the running app (its identity as ``HKHealthStore`` resolves it).
    public static func `default`() -> HKSource { HKSource(bundleIdentifier: AppIdentityResolver.fromEnvironment().id) }

    public static func == (a: HKSource, b: HKSource) -> Bool { a.bundleIdentifier == b.bundleIdentifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(bundleIdentifier) }
    public var description: String { bundleIdentifier }
}

/// A source at a version (HealthKit `HKSourceRevision`).
public final class HKSourceRevision: Hashable, @unchecked Sendable {
    public let source: HKSource
    public let version: String?
    public let productType: String?
    public let operatingSystemVersion: OperatingSystemVersion

    public init(source: HKSource, version: String?, productType: String? = nil,
                operatingSystemVersion: OperatingSystemVersion = OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0)) {
        self.source = source
        self.version = version
        self.productType = productType
        self.operatingSystemVersion = operatingSystemVersion
    }

    public static func == (a: HKSourceRevision, b: HKSourceRevision) -> Bool {
        a.source == b.source && a.version == b.version && a.productType == b.productType
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(source); hasher.combine(version) }
}

/// The hardware that recorded a sample (HealthKit `HKDevice`). BandKit keeps name, manufacturer,
/// model, a hardware identifier (read back as ``localIdentifier``) and the firmware version.
public final class HKDevice: Hashable, @unchecked Sendable {
    public let name: String?
    public let manufacturer: String?
    public let model: String?
    public let hardwareVersion: String?
    public let firmwareVersion: String?
    public let softwareVersion: String?
    public let localIdentifier: String?
    public let udiDeviceIdentifier: String?

    public init(name: String?, manufacturer: String?, model: String?, hardwareVersion: String?,
                firmwareVersion: String?, softwareVersion: String?, localIdentifier: String?, udiDeviceIdentifier: String?) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.firmwareVersion = firmwareVersion
        self.softwareVersion = softwareVersion
        self.localIdentifier = localIdentifier
        self.udiDeviceIdentifier = udiDeviceIdentifier
    }

    /// HealthKit's device of the running host: BandKit has no hardware model of its own.
    public static func local() -> HKDevice {
        HKDevice(name: ProcessInfo.processInfo.hostName, manufacturer: nil, model: nil, hardwareVersion: nil,
                 firmwareVersion: nil, softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil)
    }

    convenience init(_ info: DeviceInfo) {
        self.init(name: info.name, manufacturer: info.manufacturer, model: info.model, hardwareVersion: nil,
                  firmwareVersion: info.firmwareVersion, softwareVersion: nil, localIdentifier: info.hardwareIdentifier,
                  udiDeviceIdentifier: nil)
    }

    var info: DeviceInfo {
        DeviceInfo(name: name, manufacturer: manufacturer, model: model,
                   hardwareIdentifier: localIdentifier ?? udiDeviceIdentifier, firmwareVersion: firmwareVersion)
    }

    public static func == (a: HKDevice, b: HKDevice) -> Bool { a.info == b.info }
    public func hash(into hasher: inout Hasher) { hasher.combine(info) }
}

/// Anything stored (HealthKit `HKObject`).
public class HKObject: Hashable, @unchecked Sendable {
    public let uuid: UUID
    public let metadata: [String: Any]?
    /// The app that saved it, at its version; set when read back from the store. Before saving it
    /// is the running app's source, as on Apple.
    public internal(set) var sourceRevision: HKSourceRevision
    public let device: HKDevice?

    init(uuid: UUID, metadata: [String: Any]?, device: HKDevice?, source: AppIdentity?) {
        self.uuid = uuid
        self.metadata = metadata
        self.device = device
        let app = source ?? AppIdentityResolver.fromEnvironment()
        sourceRevision = HKSourceRevision(source: HKSource(bundleIdentifier: app.id), version: app.version)
    }

    @available(*, deprecated, message: "use sourceRevision.source")
    public var source: HKSource { sourceRevision.source }

    public static func == (a: HKObject, b: HKObject) -> Bool { a.uuid == b.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}

/// An object with a start and an end (HealthKit `HKSample`).
public class HKSample: HKObject, @unchecked Sendable {
    public let sampleType: HKSampleType
    public let startDate: Date
    public let endDate: Date
    public var hasUndeterminedDuration: Bool { false }

    init(type: HKSampleType, start: Date, end: Date, uuid: UUID, metadata: [String: Any]?, device: HKDevice?,
         source: AppIdentity?) {
        sampleType = type
        startDate = start
        endDate = end
        super.init(uuid: uuid, metadata: metadata, device: device, source: source)
    }

    /// Why this sample cannot be saved, or nil (Apple raises an exception in the initializer).
    var problem: String? {
        endDate < startDate ? "the sample ends (\(endDate)) before it starts (\(startDate))" : nil
    }
}

/// A deleted sample, as the anchored query reports it (HealthKit `HKDeletedObject`).
public final class HKDeletedObject: Hashable, @unchecked Sendable {
    public let uuid: UUID
    public let metadata: [String: Any]? = nil
    init(uuid: UUID) { self.uuid = uuid }
    public static func == (a: HKDeletedObject, b: HKDeletedObject) -> Bool { a.uuid == b.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}
