import BandATT
import BandGATT
import BandProtocol
import BandWire

/// What a write did, and what must happen once its Write Response is out (indications and
/// notifications caused by a write follow the response, as a client expects).
enum WriteOutcome {
    case refused(ATTErrorCode)
    case accepted(FollowUp)
}

enum ControlPointParse<T> {
    case parsed(T)
    case refused(ATTErrorCode)
}

enum FollowUp {
    case none
    case subscribed(Characteristic)
    case history(HistoryRequest)
    case auth(AuthRequest)
    case timeChanged
}

/// The band's fixed answers, the same on both targets.
public enum BandServiceConstants {
    public static let firmwareRevision = "1.0.0"
    /// Body Sensor Location 2 = Wrist.
    public static let bodySensorLocationWrist: UInt8 = 0x02
    /// RSC Feature: stride length (bit 0), total distance (bit 1), walking or running status (bit 2).
    public static let rscFeatures: UInt16 = 0x0007
    /// The activity service's "not authenticated" application error.
    public static let notAuthenticated = ATTErrorCode(rawValue: BandActivityService.notAuthenticatedError)
}

extension BandServices {
    /// Writes the value of `attribute` as this connection sees it.
    func writeValue(of attribute: BandAttributeTable.Attribute, into output: inout ByteWriter) {
        switch attribute.role {
        case .primaryService(let uuid):
            uuid.encode(into: &output)
        case .declaration(let characteristic):
            BandAttributeTable.writeDeclaration(of: characteristic, into: &output)
        case .configuration(let characteristic):
            output.writeUInt16LE(connection?.configuration(characteristic) ?? 0)
        case .value(let characteristic):
            writeCharacteristicValue(characteristic, into: &output)
        }
    }

    func writeCharacteristicValue(_ characteristic: Characteristic, into output: inout ByteWriter) {
        switch characteristic {
        case .deviceName: output.writeUTF8(configuration.deviceName)
        case .appearance: Appearance.sportsWatch.encode(into: &output)
        case .manufacturerName: output.writeUTF8("BandKit" as StaticString)
        case .modelNumber: output.writeUTF8("BK-1 (simulated)" as StaticString)
        case .serialNumber: writeSerialNumber(into: &output)
        case .firmwareRevision: output.writeUTF8(BandServiceConstants.firmwareRevision)
        case .batteryLevel: output.writeUInt8(core.batteryLevel)
        case .bodySensorLocation: output.writeUInt8(BandServiceConstants.bodySensorLocationWrist)
        case .rscFeature: output.writeUInt16LE(BandServiceConstants.rscFeatures)
        case .currentTime: writeCurrentTime(into: &output)
        case .localTimeInformation:
            LocalTimeInformation(timeZone: core.clock.timeZone, dstOffset: .init(rawValue: core.clock.dstOffset)).encode(into: &output)
        case .liveActivity: core.liveActivity(at: trueTime).encode(into: &output)
        case .serviceChanged, .heartRateMeasurement, .heartRateControlPoint, .rscMeasurement,
             .historyControlPoint, .historyData, .authControlPoint:
            // Not readable; readRefusal keeps reads away from these.
            break
        }
    }

    /// A serial number derived from the flash's history ID, "BK1-" and 8 upper-case hex digits:
    /// stable for one band, distinct across bands. Written digit by digit (no String on the chip).
    func writeSerialNumber(into output: inout ByteWriter) {
        output.writeUTF8("BK1-" as StaticString)
        let id = core.flash.historyID
        for shift in stride(from: 28, through: 0, by: -4) {
            let digit = UInt8(truncatingIfNeeded: id >> UInt32(shift)) & 0x0F
            output.writeUInt8(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "A") + digit - 10)
        }
    }

    /// Checks and applies a write to `attribute`.
    func writeValue(_ value: UnsafeRawBufferPointer, to attribute: BandAttributeTable.Attribute, withResponse: Bool) -> WriteOutcome {
        guard let current = connection else { return .refused(.unlikelyError) }
        switch attribute.role {
        case .primaryService, .declaration:
            return .refused(.writeNotPermitted)
        case .configuration(let characteristic):
            if characteristic.requiresAuthentication, !current.authenticated { return .refused(BandServiceConstants.notAuthenticated) }
            guard value.count == 2 else { return .refused(.invalidAttributeValueLength) }
            let bits = UInt16(value[0]) | UInt16(value[1]) << 8
            var allowed: UInt16 = 0
            if characteristic.properties.contains(.notify) { allowed |= 0x0001 }
            if characteristic.properties.contains(.indicate) { allowed |= 0x0002 }
            guard bits & ~allowed == 0 else { return .refused(.valueNotAllowed) }
            current.setConfiguration(bits, for: characteristic)
            return .accepted(bits & 0x0001 != 0 ? .subscribed(characteristic) : .none)
        case .value(let characteristic):
            if characteristic.requiresAuthentication, !current.authenticated { return .refused(BandServiceConstants.notAuthenticated) }
            let properties = characteristic.properties
            guard properties.contains(withResponse ? .write : .writeWithoutResponse) else {
                return .refused(.writeNotPermitted)
            }
            return writeCharacteristic(characteristic, value: value, on: current)
        }
    }

    private func writeCharacteristic(_ characteristic: Characteristic, value: UnsafeRawBufferPointer, on current: ServiceConnection) -> WriteOutcome {
        switch characteristic {
        case .heartRateControlPoint:
            guard value.count == 1 else { return .refused(.invalidAttributeValueLength) }
            // HRS 1.0 §3.3.1: 0x01 Reset Energy Expended; anything else is 0x80.
            guard value[0] == 0x01 else { return .refused(.application(0)) }
            core.resetEnergyExpended()
            return .accepted(.none)
        case .currentTime:
            return writeCurrentTime(value)
        case .localTimeInformation:
            return writeLocalTimeInformation(value)
        case .historyControlPoint:
            guard current.indicating(.historyControlPoint) else { return .refused(.cccdImproperlyConfigured) }
            switch parseControlPoint(value, as: HistoryRequest.self) {
            case .parsed(let request):
                // Abort is the one request that makes sense while a transfer runs.
                if case .abort = request {
                    guard !current.awaitingConfirmation else { return .refused(.procedureAlreadyInProgress) }
                    return .accepted(.history(request))
                }
                guard current.transfer == nil, !current.awaitingConfirmation else { return .refused(.procedureAlreadyInProgress) }
                if case .fetch = request, !current.notifying(.historyData) { return .refused(.cccdImproperlyConfigured) }
                return .accepted(.history(request))
            case .refused(let error): return .refused(error)
            }
        case .authControlPoint:
            guard current.indicating(.authControlPoint) else { return .refused(.cccdImproperlyConfigured) }
            guard current.pairing == nil, !current.awaitingConfirmation else { return .refused(.procedureAlreadyInProgress) }
            switch parseControlPoint(value, as: AuthRequest.self) {
            case .parsed(let request): return .accepted(.auth(request))
            case .refused(let error): return .refused(error)
            }
        default:
            return .refused(.writeNotPermitted)
        }
    }

    /// Decodes a control point value; wrong length → 0x0D, unknown opcode or bad field → 0x13.
    private func parseControlPoint<T: WireDecodable>(_ value: UnsafeRawBufferPointer, as: T.Type) -> ControlPointParse<T> {
        do throws(ParseError) {
            return .parsed(try T(parsingAll: value))
        } catch {
            switch error.kind {
            case .truncated, .trailingBytes: return .refused(.invalidAttributeValueLength)
            case .unsupported, .invalidValue: return .refused(.valueNotAllowed)
            }
        }
    }

    func perform(_ followUp: FollowUp) {
        switch followUp {
        case .none:
            break
        case .subscribed(let characteristic):
            // A fresh subscriber gets the current value at once rather than waiting for a change.
            switch characteristic {
            case .liveActivity: notifyLiveActivity(force: true)
            case .batteryLevel: notifyBattery(force: true)
            default: break
            }
        case .history(let request):
            handleHistoryRequest(request)
        case .auth(let request):
            handleAuthRequest(request)
        case .timeChanged:
            notify(.currentTime) { writeCurrentTime(into: &$0) }
            notifyLiveActivity(force: false)
        }
    }
}
