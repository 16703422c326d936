/// Sizes fixed by the Attribute Protocol.
public enum ATT {
    /// Default and minimum ATT_MTU on an LE link (Core 5.4 Vol 3 Part G §5.2.1).
    public static let defaultLEMTU = 23
    /// The largest ATT_MTU worth negotiating: a 512-byte value plus the 5-byte Prepare Write
    /// header (BlueZ `BT_ATT_MAX_LE_MTU`).
    public static let maximumMTU = 517
    /// Longest attribute value (Core 5.4 Vol 3 Part F §3.2.9).
    public static let maximumAttributeValueLength = 512
    /// Longest PDU parameters (everything after the opcode) at ``maximumMTU``.
    public static let maximumParameterLength = maximumMTU - 1
    /// The L2CAP fixed channel that carries ATT on LE (Core 5.4 Vol 3 Part A §2.1).
    public static let leChannelID: UInt16 = 0x0004
}
