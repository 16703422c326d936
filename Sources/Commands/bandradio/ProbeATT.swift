import BandBlueZ
import BandLink

/// The few ATT PDUs the probe exchanges (Core 5.4 Vol 3 Part F §3.4), built by hand on
/// purpose: the probe tests the link, so it must not depend on the ATT layer it carries.
enum ProbeATT {
    static let errorResponse: UInt8 = 0x01
    static let exchangeMTURequest: UInt8 = 0x02
    static let exchangeMTUResponse: UInt8 = 0x03
    static let readRequest: UInt8 = 0x0A
    static let readResponse: UInt8 = 0x0B
    static let insufficientAuthentication: UInt8 = 0x05
    static let requestNotSupported: UInt8 = 0x06
    /// The one attribute the probe server has; reading it needs an encrypted link.
    static let protectedHandle: UInt16 = 0x0003
    static let serverMTU: UInt16 = 247

    static func error(for opcode: UInt8, handle: UInt16, code: UInt8) -> [UInt8] {
        [errorResponse, opcode, UInt8(handle & 0xFF), UInt8(handle >> 8), code]
    }

    static func little(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
