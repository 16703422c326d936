import BandWire

/// Any value a reader writes to the Auth Control Point, dispatched on its opcode.
/// Unknown opcode: ``ParseError/Kind/unsupported`` at offset 0.
public enum AuthRequest: Equatable, Sendable, WireCodable {
    case pair(PairingRequest)
    case challenge(ChallengeRequest)
    case proof(ProofRequest)

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        switch AuthOpcode(rawValue: try input.peekUInt8("auth opcode")) {
        case .pair: self = .pair(try PairingRequest(parsing: &input))
        case .challenge: self = .challenge(try ChallengeRequest(parsing: &input))
        case .proof: self = .proof(try ProofRequest(parsing: &input))
        default: throw input.error(.unsupported, "auth request opcode")
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
