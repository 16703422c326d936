/// First byte of every Auth Control Point value. Requests have bit 7 clear; the band's
/// indicated responses are `0x80 | request`. Open: unknown values survive parsing.
///
/// | value | message | direction |
/// |---|---|---|
/// | 0x01 | ``PairingRequest`` | reader → band (write) |
/// | 0x02 | ``ChallengeRequest`` | reader → band (write) |
/// | 0x03 | ``ProofRequest`` | reader → band (write) |
/// | 0x81 | ``PairingResponse`` | band → reader (indicate) |
/// | 0x82 | ``ChallengeResponse`` | band → reader (indicate) |
/// | 0x83 | ``ProofResponse`` | band → reader (indicate) |
public struct AuthOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let pair = AuthOpcode(rawValue: 0x01)
    public static let challenge = AuthOpcode(rawValue: 0x02)
    public static let proof = AuthOpcode(rawValue: 0x03)
    public static let pairResponse = AuthOpcode(rawValue: 0x81)
    public static let challengeResponse = AuthOpcode(rawValue: 0x82)
    public static let proofResponse = AuthOpcode(rawValue: 0x83)

    public var description: String {
        switch self {
        case .pair: "pair"
        case .challenge: "challenge"
        case .proof: "proof"
        case .pairResponse: "pair response"
        case .challengeResponse: "challenge response"
        case .proofResponse: "proof response"
        default: "auth opcode 0x\(String(rawValue, radix: 16))"
        }
    }
}

/// Reads the opcode byte and insists on `expected`.
func expectOpcode(_ expected: AuthOpcode, in input: inout ByteCursor) throws(ParseError) {
    let at = input.offset
    guard try input.readUInt8("auth opcode") == expected.rawValue else {
        throw ParseError(.invalidValue, at: at, field: "auth opcode")
    }
}

import BandWire
