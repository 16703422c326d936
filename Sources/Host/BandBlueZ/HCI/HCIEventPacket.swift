import BandHCI
import BandWire

/// An HCI event as read from a raw HCI socket, decoded as far as a scanner needs.
///
/// Core 5.4 Vol 4 Part E §5.4.4 (event packet), Part A §2 (indicator 0x04).
///
/// | offset | size | field                               |
/// |--------|------|-------------------------------------|
/// | 0      | 1    | packet type 0x04 (event)            |
/// | 1      | 1    | event code (``HCIEventCode``)       |
/// | 2      | 1    | parameter length *n*                |
/// | 3      | *n*  | parameters (by event code)          |
///
/// Parameters of events BandKit does not decode are kept verbatim in ``Body/other(_:parameters:)``.
/// The parameter length must match what follows exactly (one event per datagram).
public struct HCIEventPacket: Hashable, Sendable, WireCodable {
    public static let packetType: UInt8 = 0x04

    public enum Body: Hashable, Sendable {
        case commandComplete(HCICommandComplete)
        case commandStatus(HCICommandStatus)
        /// LE Advertising Report or LE Extended Advertising Report: one or more reports.
        case advertisingReports([AdvertisingReport], extended: Bool)
        case other(HCIEventCode, parameters: [UInt8])
    }

    public var body: Body

    public init(_ body: Body) { self.body = body }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let type = try input.readUInt8("HCI packet type")
        guard type == Self.packetType else { throw ParseError(.invalidValue, at: input.offset - 1, field: "HCI packet type") }
        let code = HCIEventCode(rawValue: try input.readUInt8("HCI event code"))
        let length = Int(try input.readUInt8("HCI parameter length"))
        var parameters = try input.readCursor(length, "HCI event parameters")
        switch code {
        case .commandComplete:
            body = .commandComplete(try HCICommandComplete(parsing: &parameters))
        case .commandStatus:
            body = .commandStatus(try HCICommandStatus(parsing: &parameters))
        case .leMeta:
            let start = parameters
            let subevent = LEMetaSubevent(rawValue: try parameters.readUInt8("LE subevent code"))
            switch subevent {
            case .advertisingReport:
                body = .advertisingReports(try Self.reports(&parameters, AdvertisingReport.init(parsingLegacy:)), extended: false)
            case .extendedAdvertisingReport:
                body = .advertisingReports(try Self.reports(&parameters, AdvertisingReport.init(parsingExtended:)), extended: true)
            default:
                parameters = start
                body = .other(code, parameters: Array(parameters.readRemaining()))
            }
        default:
            body = .other(code, parameters: Array(parameters.readRemaining()))
        }
        try parameters.expectEnd("HCI event parameters")
    }

    private static func reports(_ input: inout ByteCursor,
                                _ parse: (inout ByteCursor) throws(ParseError) -> AdvertisingReport) throws(ParseError) -> [AdvertisingReport] {
        let count = Int(try input.readUInt8("Num_Reports"))
        guard count >= 1 else { throw ParseError(.invalidValue, at: input.offset - 1, field: "Num_Reports") }
        var reports: [AdvertisingReport] = []
        reports.reserveCapacity(count)
        for _ in 0..<count { reports.append(try parse(&input)) }
        return reports
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.packetType)
        switch body {
        case .commandComplete(let event):
            output.writeUInt8(HCIEventCode.commandComplete.rawValue)
            output.writeUInt8(UInt8(truncatingIfNeeded: 3 + event.returnParameters.count))
            event.encode(into: &output)
        case .commandStatus(let event):
            output.writeUInt8(HCIEventCode.commandStatus.rawValue)
            output.writeUInt8(4)
            event.encode(into: &output)
        case .advertisingReports(let reports, let extended):
            output.writeUInt8(HCIEventCode.leMeta.rawValue)
            let size = 2 + reports.reduce(0) { $0 + (extended ? $1.extendedEncodedSize : $1.legacyEncodedSize) }
            output.writeUInt8(UInt8(truncatingIfNeeded: size))
            output.writeUInt8(extended ? LEMetaSubevent.extendedAdvertisingReport.rawValue : LEMetaSubevent.advertisingReport.rawValue)
            output.writeUInt8(UInt8(truncatingIfNeeded: reports.count))
            for report in reports {
                if extended { report.encodeExtended(into: &output) } else { report.encodeLegacy(into: &output) }
            }
        case .other(let code, let parameters):
            output.writeUInt8(code.rawValue)
            output.writeUInt8(UInt8(truncatingIfNeeded: parameters.count))
            output.writeBytes(parameters)
        }
    }
}
