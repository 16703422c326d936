import BandGATT
import BandProtocol
import BandWire

/// Every characteristic the band serves. The raw value indexes per-connection tables
/// (CCCD values), so the enumeration is the firmware's characteristic table.
public enum Characteristic: Int, CaseIterable, Sendable {
    case deviceName, appearance
    case serviceChanged
    case manufacturerName, modelNumber, serialNumber, firmwareRevision
    case batteryLevel
    case heartRateMeasurement, bodySensorLocation, heartRateControlPoint
    case rscMeasurement, rscFeature
    case currentTime, localTimeInformation
    case liveActivity, historyControlPoint, historyData, authControlPoint

    public var uuid: BluetoothUUID {
        switch self {
        case .deviceName: GATTUUID.Characteristic.deviceName
        case .appearance: GATTUUID.Characteristic.appearance
        case .serviceChanged: GATTUUID.Characteristic.serviceChanged
        case .manufacturerName: GATTUUID.Characteristic.manufacturerNameString
        case .modelNumber: GATTUUID.Characteristic.modelNumberString
        case .serialNumber: GATTUUID.Characteristic.serialNumberString
        case .firmwareRevision: GATTUUID.Characteristic.firmwareRevisionString
        case .batteryLevel: GATTUUID.Characteristic.batteryLevel
        case .heartRateMeasurement: GATTUUID.Characteristic.heartRateMeasurement
        case .bodySensorLocation: GATTUUID.Characteristic.bodySensorLocation
        case .heartRateControlPoint: GATTUUID.Characteristic.heartRateControlPoint
        case .rscMeasurement: GATTUUID.Characteristic.rscMeasurement
        case .rscFeature: GATTUUID.Characteristic.rscFeature
        case .currentTime: GATTUUID.Characteristic.currentTime
        case .localTimeInformation: GATTUUID.Characteristic.localTimeInformation
        case .liveActivity: BandActivityService.liveActivity
        case .historyControlPoint: BandActivityService.historyControlPoint
        case .historyData: BandActivityService.historyData
        case .authControlPoint: BandActivityService.authControlPoint
        }
    }

    public var properties: CharacteristicProperties {
        switch self {
        case .deviceName, .appearance, .manufacturerName, .modelNumber, .serialNumber, .firmwareRevision,
             .bodySensorLocation, .rscFeature:
            [.read]
        case .serviceChanged: [.indicate]
        case .batteryLevel: [.read, .notify]
        case .heartRateMeasurement, .rscMeasurement, .historyData: [.notify]
        case .heartRateControlPoint: [.write]
        case .currentTime: [.read, .write, .notify]
        case .localTimeInformation: [.read, .write]
        case .liveActivity: [.read, .notify]
        case .historyControlPoint, .authControlPoint: [.write, .indicate]
        }
    }

    /// A characteristic with notify or indicate gets a Client Characteristic Configuration descriptor.
    public var needsConfiguration: Bool { !properties.isDisjoint(with: [.notify, .indicate]) }

    /// Reads and writes of the value and its CCCD need an authenticated connection
    /// (``BandActivityService/notAuthenticatedError`` otherwise).
    public var requiresAuthentication: Bool {
        switch self {
        case .liveActivity, .historyControlPoint, .historyData: true
        default: false
        }
    }
}
