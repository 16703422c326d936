import BandWire

/// The return parameters of Read Local Version Information after its status (Core 5.4 Vol 4
/// Part E §7.4.1): which Bluetooth version the controller speaks and who made it.
///
/// | bytes | field |
/// |---|---|
/// | u8 | HCI version (e.g. 0x0D = 5.4) |
/// | u16 LE | HCI subversion |
/// | u8 | LMP/LL version |
/// | u16 LE | company identifier |
/// | u16 LE | LMP/LL subversion |
public struct LocalVersionInformation: WireCodable, Hashable, Sendable {
    public var hciVersion: UInt8
    public var hciSubversion: UInt16
    public var linkLayerVersion: UInt8
    public var companyIdentifier: UInt16
    public var linkLayerSubversion: UInt16

    public init(hciVersion: UInt8, hciSubversion: UInt16 = 0, linkLayerVersion: UInt8, companyIdentifier: UInt16, linkLayerSubversion: UInt16 = 0) {
        self.hciVersion = hciVersion
        self.hciSubversion = hciSubversion
        self.linkLayerVersion = linkLayerVersion
        self.companyIdentifier = companyIdentifier
        self.linkLayerSubversion = linkLayerSubversion
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        hciVersion = try input.readUInt8("HCI version")
        hciSubversion = try input.readUInt16LE("HCI subversion")
        linkLayerVersion = try input.readUInt8("LMP version")
        companyIdentifier = try input.readUInt16LE("company identifier")
        linkLayerSubversion = try input.readUInt16LE("LMP subversion")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(hciVersion)
        output.writeUInt16LE(hciSubversion)
        output.writeUInt8(linkLayerVersion)
        output.writeUInt16LE(companyIdentifier)
        output.writeUInt16LE(linkLayerSubversion)
    }
}
