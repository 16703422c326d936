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
        case .deviceName: BluetoothUUID(0x2A00)
        case .appearance: BluetoothUUID(0x2A01)
        case .serviceChanged: BluetoothUUID(0x2A05)
        case .manufacturerName: BluetoothUUID(0x2A29)
        case .modelNumber: BluetoothUUID(0x2A24)
        case .serialNumber: BluetoothUUID(0x2A25)
        case .firmwareRevision: BluetoothUUID(0x2A26)
        case .batteryLevel: BluetoothUUID(0x2A19)
        case .heartRateMeasurement: BluetoothUUID(0x2A37)
        case .bodySensorLocation: BluetoothUUID(0x2A38)
        case .heartRateControlPoint: BluetoothUUID(0x2A39)
        case .rscMeasurement: BluetoothUUID(0x2A53)
        case .rscFeature: BluetoothUUID(0x2A54)
        case .currentTime: BluetoothUUID(0x2A2B)
        case .localTimeInformation: BluetoothUUID(0x2A0F)
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

    /// Reads and writes of the value and its CCCD need an authenticated connection
    /// (``BandActivityService/notAuthenticatedError`` otherwise).
    public var requiresAuthentication: Bool {
        switch self {
        case .liveActivity, .historyControlPoint, .historyData: true
        default: false
        }
    }
}
