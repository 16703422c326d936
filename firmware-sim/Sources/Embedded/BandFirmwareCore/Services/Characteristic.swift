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
        case .liveActivity: BandActivityService.liveActivity
        case .historyControlPoint: BandActivityService.historyControlPoint
        case .historyData: BandActivityService.historyData
        case .authControlPoint: BandActivityService.authControlPoint
        default: BluetoothUUID(Self.assignedNumbers[rawValue])
        }
    }

    /// The SIG characteristics' 16-bit UUIDs (GATTUUID.Characteristic's), by raw value: constant
    /// data, where a switch over GATTUUID's lazily initialised constants cost the chip 1.7 KB.
    /// ATTServerTests compares each with GATTUUID.
    static let assignedNumbers: [UInt16] = [
        0x2A00, 0x2A01,                     // device name, appearance
        0x2A05,                             // service changed
        0x2A29, 0x2A24, 0x2A25, 0x2A26,     // manufacturer, model, serial, firmware revision
        0x2A19,                             // battery level
        0x2A37, 0x2A38, 0x2A39,             // heart rate measurement, body sensor location, control point
        0x2A53, 0x2A54,                     // RSC measurement, feature
        0x2A2B, 0x2A0F,                     // current time, local time information
    ]

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
