import BandATT
import BandTestSupport
import BandWire

/// An attribute value from hex.
func attributeBytes(_ hex: String) -> AttributeBytes { AttributeBytes(bytes(hex)) }

/// Decodes one whole PDU through the opcode dispatch.
func decodePDU(_ input: [UInt8]) throws(ParseError) -> ATTPDU {
    try parse(input) { (cursor) throws(ParseError) in try ATTPDU(parsing: &cursor) }
}
