import BandATT
import BandWire

/// A characteristic or descriptor value decoded by the UUID that names it: what the trace
/// decoder and the reader call once discovery has mapped a handle to a UUID.
///
/// The value must fill the buffer exactly (`init(uuid:parsing:)` rejects trailing bytes);
/// a UUID without a decoder here yields ``unknown(_:)`` with the raw bytes.
///
/// The cases that own up to 512 bytes inline (strings, unknown values) are `indirect`: they
/// are read once per connection, while an enum is as large as its largest payload and every
/// Heart Rate Measurement would otherwise be built, moved and matched as a 530-byte value.
/// What the packet path decodes (measurements, battery, CCCD) stays inline and small.
public enum CharacteristicValue: Equatable, Sendable, WireEncodable {
    case heartRateMeasurement(HeartRateMeasurement)
    case bodySensorLocation(BodySensorLocation)
    case heartRateControlPoint(HeartRateControlPoint)
    case rscMeasurement(RSCMeasurement)
    case rscFeature(RSCFeature)
    case batteryLevel(BatteryLevel)
    case currentTime(CurrentTime)
    case dateTime(DateTime)
    case localTimeInformation(LocalTimeInformation)
    indirect case deviceName(DeviceInformationString)
    case appearance(Appearance)
    case serviceChanged(ServiceChanged)
    case systemID(SystemID)
    indirect case manufacturerName(DeviceInformationString)
    indirect case modelNumber(DeviceInformationString)
    indirect case serialNumber(DeviceInformationString)
    indirect case hardwareRevision(DeviceInformationString)
    indirect case firmwareRevision(DeviceInformationString)
    indirect case softwareRevision(DeviceInformationString)
    case clientCharacteristicConfiguration(ClientCharacteristicConfiguration)
    indirect case unknown(AttributeBytes)

    /// Whether ``init(uuid:parsing:)`` has a decoder for `uuid`.
    public static func isKnown(_ uuid: BluetoothUUID) -> Bool {
        switch uuid {
        case GATTUUID.Characteristic.heartRateMeasurement,
             GATTUUID.Characteristic.bodySensorLocation,
             GATTUUID.Characteristic.heartRateControlPoint,
             GATTUUID.Characteristic.rscMeasurement,
             GATTUUID.Characteristic.rscFeature,
             GATTUUID.Characteristic.batteryLevel,
             GATTUUID.Characteristic.currentTime,
             GATTUUID.Characteristic.dateTime,
             GATTUUID.Characteristic.localTimeInformation,
             GATTUUID.Characteristic.deviceName,
             GATTUUID.Characteristic.appearance,
             GATTUUID.Characteristic.serviceChanged,
             GATTUUID.Characteristic.systemID,
             GATTUUID.Characteristic.manufacturerNameString,
             GATTUUID.Characteristic.modelNumberString,
             GATTUUID.Characteristic.serialNumberString,
             GATTUUID.Characteristic.hardwareRevisionString,
             GATTUUID.Characteristic.firmwareRevisionString,
             GATTUUID.Characteristic.softwareRevisionString,
             GATTUUID.Descriptor.clientCharacteristicConfiguration:
            true
        default:
            false
        }
    }

    /// Decodes the value of the attribute of type `uuid` held in the rest of `input`.
    @inline(__always)  // into init(uuid:bytes:), the trace decoder's: the value is built in place, not copied
    public init(uuid: BluetoothUUID, parsing input: inout ByteCursor) throws(ParseError) {
        switch uuid {
        case GATTUUID.Characteristic.heartRateMeasurement: self = .heartRateMeasurement(try HeartRateMeasurement(parsing: &input))
        case GATTUUID.Characteristic.bodySensorLocation: self = .bodySensorLocation(try BodySensorLocation(parsing: &input))
        case GATTUUID.Characteristic.heartRateControlPoint: self = .heartRateControlPoint(try HeartRateControlPoint(parsing: &input))
        case GATTUUID.Characteristic.rscMeasurement: self = .rscMeasurement(try RSCMeasurement(parsing: &input))
        case GATTUUID.Characteristic.rscFeature: self = .rscFeature(try RSCFeature(parsing: &input))
        case GATTUUID.Characteristic.batteryLevel: self = .batteryLevel(try BatteryLevel(parsing: &input))
        case GATTUUID.Characteristic.currentTime: self = .currentTime(try CurrentTime(parsing: &input))
        case GATTUUID.Characteristic.dateTime: self = .dateTime(try DateTime(parsing: &input))
        case GATTUUID.Characteristic.localTimeInformation: self = .localTimeInformation(try LocalTimeInformation(parsing: &input))
        case GATTUUID.Characteristic.deviceName: self = .deviceName(try DeviceInformationString(parsing: &input))
        case GATTUUID.Characteristic.appearance: self = .appearance(try Appearance(parsing: &input))
        case GATTUUID.Characteristic.serviceChanged: self = .serviceChanged(try ServiceChanged(parsing: &input))
        case GATTUUID.Characteristic.systemID: self = .systemID(try SystemID(parsing: &input))
        case GATTUUID.Characteristic.manufacturerNameString: self = .manufacturerName(try DeviceInformationString(parsing: &input))
        case GATTUUID.Characteristic.modelNumberString: self = .modelNumber(try DeviceInformationString(parsing: &input))
        case GATTUUID.Characteristic.serialNumberString: self = .serialNumber(try DeviceInformationString(parsing: &input))
        case GATTUUID.Characteristic.hardwareRevisionString: self = .hardwareRevision(try DeviceInformationString(parsing: &input))
        case GATTUUID.Characteristic.firmwareRevisionString: self = .firmwareRevision(try DeviceInformationString(parsing: &input))
        case GATTUUID.Characteristic.softwareRevisionString: self = .softwareRevision(try DeviceInformationString(parsing: &input))
        case GATTUUID.Descriptor.clientCharacteristicConfiguration: self = .clientCharacteristicConfiguration(try ClientCharacteristicConfiguration(parsing: &input))
        default:
            let start = input.offset
            self = .unknown(try AttributeBytes(copying: input.readRemaining(), offset: start))
        }
        try input.expectEnd("characteristic value")
    }

    /// Decodes a whole attribute value held in `bytes`.
    public init(uuid: BluetoothUUID, bytes: UnsafeRawBufferPointer, baseOffset: Int = 0) throws(ParseError) {
        var cursor = ByteCursor(bytes, baseOffset: baseOffset)
        try self.init(uuid: uuid, parsing: &cursor)
    }

    public func encode(into output: inout ByteWriter) {
        switch self {
        case .heartRateMeasurement(let value): value.encode(into: &output)
        case .bodySensorLocation(let value): value.encode(into: &output)
        case .heartRateControlPoint(let value): value.encode(into: &output)
        case .rscMeasurement(let value): value.encode(into: &output)
        case .rscFeature(let value): value.encode(into: &output)
        case .batteryLevel(let value): value.encode(into: &output)
        case .currentTime(let value): value.encode(into: &output)
        case .dateTime(let value): value.encode(into: &output)
        case .localTimeInformation(let value): value.encode(into: &output)
        case .deviceName(let value): value.encode(into: &output)
        case .appearance(let value): value.encode(into: &output)
        case .serviceChanged(let value): value.encode(into: &output)
        case .systemID(let value): value.encode(into: &output)
        case .manufacturerName(let value): value.encode(into: &output)
        case .modelNumber(let value): value.encode(into: &output)
        case .serialNumber(let value): value.encode(into: &output)
        case .hardwareRevision(let value): value.encode(into: &output)
        case .firmwareRevision(let value): value.encode(into: &output)
        case .softwareRevision(let value): value.encode(into: &output)
        case .clientCharacteristicConfiguration(let value): value.encode(into: &output)
        case .unknown(let bytes): bytes.write(to: &output)
        }
    }
}
