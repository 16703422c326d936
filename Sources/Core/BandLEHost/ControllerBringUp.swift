import BandHCI
import BandWire

/// The controller bring-up as a state machine, one command at a time (Zephyr's `hci_init`,
/// NimBLE's `ble_hs_startup` do the same sequence):
///
/// | step | command | on success | on error |
/// |---|---|---|---|
/// | reset | Reset | next | failed |
/// | version | Read Local Version Information | kept in ``ControllerInfo`` | failed |
/// | features | Read Local Supported Features | LE bit 38 must be set | failed |
/// | buffer size v2 | LE Read Buffer Size [v2] | ACL length and count | Unknown HCI Command → v1 |
/// | buffer size v1 | LE Read Buffer Size [v1] | ACL length (≥ 27) and count (≥ 1) | failed |
/// | address | Read BD_ADDR | kept | failed |
/// | event mask | Set Event Mask | next | failed |
/// | LE event mask | LE Set Event Mask | next | failed |
/// | advertising parameters, data, scan response, enable | LE Set Advertising … | next; ready after enable | failed |
///
/// ``step`` names the command to send; ``handle(_:status:returnParameters:)`` takes its
/// Command Complete and says what comes next.
public struct ControllerBringUp: Sendable {
    public enum Step: Equatable, Sendable {
        case reset, readVersion, readFeatures, readBufferSizeV2, readBufferSizeV1, readAddress
        case setEventMask, setLEEventMask, setAdvertisingParameters, setAdvertisingData, setScanResponseData, enableAdvertising
        case done

        /// The command this step sends.
        public var opcode: HCIOpcode {
            switch self {
            case .reset: return .reset
            case .readVersion: return .readLocalVersionInformation
            case .readFeatures: return .readLocalSupportedFeatures
            case .readBufferSizeV2: return .leReadBufferSizeV2
            case .readBufferSizeV1: return .leReadBufferSize
            case .readAddress: return .readBDADDR
            case .setEventMask: return .setEventMask
            case .setLEEventMask: return .leSetEventMask
            case .setAdvertisingParameters: return .leSetAdvertisingParameters
            case .setAdvertisingData: return .leSetAdvertisingData
            case .setScanResponseData: return .leSetScanResponseData
            case .enableAdvertising, .done: return .leSetAdvertisingEnable
            }
        }
    }

    /// What follows a step's Command Complete.
    public enum Outcome: Equatable, Sendable {
        /// Send ``step``'s command next.
        case next(Step)
        /// Bring-up is done.
        case ready(ControllerInfo)
        /// Not the answer the current step waits for (a late answer, another command's).
        case ignored
        case failed(LEHostError)
    }

    public private(set) var step: Step = .reset
    public private(set) var info = ControllerInfo(version: LocalVersionInformation(hciVersion: 0, linkLayerVersion: 0, companyIdentifier: 0),
                                                  features: 0, address: BluetoothAddress(0), aclPacketLength: 0, aclPacketCount: 0)

    public init() {}

    /// The LMP feature bit "LE Supported (Controller)" (Core 5.4 Vol 2 Part C §3.3).
    public static let leSupportedFeature: UInt64 = 1 << 38

    /// The Command Complete of the current step: its status and the return parameters after it.
    public mutating func handle(_ opcode: HCIOpcode, status: HCIStatus, returnParameters input: inout ByteCursor) -> Outcome {
        guard opcode == step.opcode, step != .done else { return .ignored }
        if step == .readBufferSizeV2, status == .unknownCommand || status == .unsupportedFeature {
            return advance(to: .readBufferSizeV1)
        }
        guard status == .success else { return .failed(.controllerRefused(opcode, status)) }
        do throws(ParseError) {
            switch step {
            case .readVersion:
                info.version = try LocalVersionInformation(parsing: &input)
            case .readFeatures:
                info.features = try input.readUInt64LE("LMP features")
                guard info.features & Self.leSupportedFeature != 0 else { return .failed(.lowEnergyNotSupported) }
            case .readBufferSizeV1, .readBufferSizeV2:
                let size = try LEBufferSize(parsing: &input)
                info.aclPacketLength = Int(size.aclDataPacketLength)
                info.aclPacketCount = Int(size.aclDataPacketCount)
                // 27 is the smallest LE ACL payload (Vol 6 Part B §2.4); 0 would mean the BR/EDR
                // buffers are shared, which an LE-only host does not read.
                guard info.aclPacketLength >= 27, info.aclPacketCount > 0 else {
                    return .failed(.noACLBuffers(length: info.aclPacketLength, count: info.aclPacketCount))
                }
                return advance(to: .readAddress)
            case .readAddress:
                info.address = try BluetoothAddress(parsing: &input)
            case .enableAdvertising:
                step = .done
                return .ready(info)
            default:
                break
            }
        } catch {
            return .failed(.malformedReturnParameters(opcode, error))
        }
        return advance(to: Self.successor(of: step))
    }

    /// Starts over (a Hardware Error, or the owner asked).
    public mutating func restart() { step = .reset }

    mutating func advance(to next: Step) -> Outcome {
        step = next
        return .next(next)
    }

    static func successor(of step: Step) -> Step {
        switch step {
        case .reset: return .readVersion
        case .readVersion: return .readFeatures
        case .readFeatures: return .readBufferSizeV2
        case .readBufferSizeV2, .readBufferSizeV1: return .readAddress
        case .readAddress: return .setEventMask
        case .setEventMask: return .setLEEventMask
        case .setLEEventMask: return .setAdvertisingParameters
        case .setAdvertisingParameters: return .setAdvertisingData
        case .setAdvertisingData: return .setScanResponseData
        case .setScanResponseData: return .enableAdvertising
        case .enableAdvertising, .done: return .done
        }
    }
}
