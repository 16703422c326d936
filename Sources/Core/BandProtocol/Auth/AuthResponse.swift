import BandWire

/// Any value the band indicates on the Auth Control Point, dispatched on its opcode.
/// Unknown opcode: ``ParseError/Kind/unsupported`` at offset 0.
public enum AuthResponse: Equatable, Sendable, WireCodable {
    case pair(PairingResponse)
    case challenge(ChallengeResponse)
    case proof(ProofResponse)

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        switch AuthOpcode(rawValue: try input.peekUInt8("auth opcode")) {
        case .pairResponse: self = .pair(try PairingResponse(parsing: &input))
        case .challengeResponse: self = .challenge(try ChallengeResponse(parsing: &input))
        case .proofResponse: self = .proof(try ProofResponse(parsing: &input))
        default: throw input.error(.unsupported, "auth response opcode")
        }
    }

    public func encode(into output: inout ByteWriter) {
        switch self {
        case .pair(let m): m.encode(into: &output)
        case .challenge(let m): m.encode(into: &output)
        case .proof(let m): m.encode(into: &output)
        }
    }
}
