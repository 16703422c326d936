/// Outcome byte in the band's Auth Control Point responses. Open enum.
///
/// | value | name | meaning |
/// |---|---|---|
/// | 0x00 | success | |
/// | 0x01 | denied | the wearer refused the pairing (or `--confirm deny`) |
/// | 0x02 | unknownReader | no key is stored for this reader ID: pair first |
/// | 0x03 | wrongProof | the proof did not match; the challenge is spent, ask for a new one |
/// | 0x04 | noChallenge | a proof arrived without an outstanding challenge |
/// | 0x05 | timedOut | nobody confirmed the pairing in time |
/// | 0x06 | lockedOut | too many wrong proofs on this connection; reconnect to try again |
public struct AuthStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = AuthStatus(rawValue: 0x00)
    public static let denied = AuthStatus(rawValue: 0x01)
    public static let unknownReader = AuthStatus(rawValue: 0x02)
    public static let wrongProof = AuthStatus(rawValue: 0x03)
    public static let noChallenge = AuthStatus(rawValue: 0x04)
    public static let timedOut = AuthStatus(rawValue: 0x05)
    public static let lockedOut = AuthStatus(rawValue: 0x06)

    public var description: String {
        switch self {
        case .success: "success"
        case .denied: "pairing denied"
        case .unknownReader: "unknown reader"
        case .wrongProof: "wrong proof"
        case .noChallenge: "no challenge outstanding"
        case .timedOut: "confirmation timed out"
        case .lockedOut: "locked out"
        default: "auth status 0x\(String(rawValue, radix: 16))"
        }
    }
}
