import BandWire

/// Pairing Request and Pairing Response (Core 5.4 Vol 3 Part H §3.5.1, §3.5.2): the same six
/// fields after the code, each side's capabilities and wishes.
///
/// | bytes | field |
/// |---|---|
/// | u8 | IO capability (0 DisplayOnly … 4 KeyboardDisplay) |
/// | u8 | OOB data flag |
/// | u8 | AuthReq: bits 0–1 bonding, 2 MITM, 3 SC, 4 keypress, 5 CT2 |
/// | u8 | maximum encryption key size (7…16) |
/// | u8 | initiator key distribution |
/// | u8 | responder key distribution |
public struct SMPPairingFeatures: WireCodable, Hashable, Sendable {
    public static let bonding: UInt8 = 0x01
    public static let mitm: UInt8 = 0x04
    public static let secureConnections: UInt8 = 0x08

    public var ioCapability: UInt8
    public var oobDataPresent: UInt8
    public var authenticationRequirements: UInt8
    public var maximumKeySize: UInt8
    public var initiatorKeyDistribution: UInt8
    public var responderKeyDistribution: UInt8

    public init(ioCapability: UInt8, oobDataPresent: UInt8 = 0, authenticationRequirements: UInt8, maximumKeySize: UInt8 = 16,
                initiatorKeyDistribution: UInt8 = 0, responderKeyDistribution: UInt8 = 0) {
        self.ioCapability = ioCapability
        self.oobDataPresent = oobDataPresent
        self.authenticationRequirements = authenticationRequirements
        self.maximumKeySize = maximumKeySize
        self.initiatorKeyDistribution = initiatorKeyDistribution
        self.responderKeyDistribution = responderKeyDistribution
    }

    /// Reads and checks the ranges (IO capability ≤ 4, OOB ≤ 1, key size 7…16); a value outside
    /// them is `invalidValue`, which pairing answers with Invalid Parameters.
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let ioOffset = input.offset
        ioCapability = try input.readUInt8("IO capability")
        guard ioCapability <= 4 else { throw ParseError(.invalidValue, at: ioOffset, field: "IO capability") }
        let oobOffset = input.offset
        oobDataPresent = try input.readUInt8("OOB data flag")
        guard oobDataPresent <= 1 else { throw ParseError(.invalidValue, at: oobOffset, field: "OOB data flag") }
        authenticationRequirements = try input.readUInt8("AuthReq")
        let sizeOffset = input.offset
        maximumKeySize = try input.readUInt8("maximum encryption key size")
        guard (7...16).contains(maximumKeySize) else { throw ParseError(.invalidValue, at: sizeOffset, field: "maximum encryption key size") }
        initiatorKeyDistribution = try input.readUInt8("initiator key distribution")
        responderKeyDistribution = try input.readUInt8("responder key distribution")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(ioCapability)
        output.writeUInt8(oobDataPresent)
        output.writeUInt8(authenticationRequirements)
        output.writeUInt8(maximumKeySize)
        output.writeUInt8(initiatorKeyDistribution)
        output.writeUInt8(responderKeyDistribution)
    }
}
