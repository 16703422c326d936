import BandWire

/// The pairing key a band hands a reader: 16 random bytes from the band's CSPRNG.
public typealias BandKey = FixedBytes<16>
/// The band's 16-byte random challenge.
public typealias BandNonce = FixedBytes<16>
/// An HMAC-SHA256 tag truncated to its first 16 bytes (RFC 2104 §5 allows truncation to at
/// least half the output): the full 32 bytes would not fit one 20-byte write at ATT_MTU 23.
public typealias AuthProof = FixedBytes<16>

extension ByteCursor {
    /// Reads a 16-byte authentication field into inline storage.
    mutating func readAuthBytes(_ field: StaticString) throws(ParseError) -> FixedBytes<16> {
        let at = offset
        return try FixedBytes<16>(copying: readBytes(16, field), offset: at)
    }
}
