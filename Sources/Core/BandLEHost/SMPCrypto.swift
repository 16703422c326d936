import BandWire
import FirmwareCrypto

/// The LE Secure Connections toolbox (Core 5.4 Vol 3 Part H §2.2.6–§2.2.9) over AES-CMAC, in
/// Swift. Blocks are most significant octet first as the specification writes them;
/// ``P256Coordinate`` values arrive least significant first, as on the wire, and are fed to
/// the MAC reversed. Checked against Appendix D's sample data (BandLEHostTests).
public enum SMPCrypto {
    /// f4(U, V, X, Z) = AES-CMAC_X(U ‖ V ‖ Z): the confirm values.
    public static func f4(u: P256Coordinate, v: P256Coordinate, x: AESBlock, z: UInt8) -> AESBlock {
        var cmac = AESCMAC(key: x)
        feed(u, into: &cmac)
        feed(v, into: &cmac)
        cmac.update(byte: z)
        return cmac.finalize()
    }

    /// The salt of f5 (§2.2.7).
    static let f5Salt = AESBlock(bytes: [0x6c, 0x88, 0x83, 0x91, 0xaa, 0xf5, 0xa5, 0x38, 0x60, 0x37, 0x0b, 0xdb, 0x5a, 0x60, 0x83, 0xbe])

    /// f5(W, N1, N2, A1, A2): the MacKey and the LTK from the DHKey `w`, both nonces and both
    /// addresses (initiator first).
    public static func f5(w: P256Coordinate, n1: AESBlock, n2: AESBlock, a1: LEAddress, a2: LEAddress) -> (macKey: AESBlock, ltk: AESBlock) {
        var salted = AESCMAC(key: f5Salt)
        feed(w, into: &salted)
        let t = salted.finalize()
        func derive(_ counter: UInt8) -> AESBlock {
            var cmac = AESCMAC(key: t)
            cmac.update(byte: counter)
            for byte: UInt8 in [0x62, 0x74, 0x6c, 0x65] { cmac.update(byte: byte) }  // keyID "btle"
            cmac.update(n1)
            cmac.update(n2)
            feed(a1, into: &cmac)
            feed(a2, into: &cmac)
            cmac.update(byte: 0x01)  // Length = 256 bits
            cmac.update(byte: 0x00)
            return cmac.finalize()
        }
        return (derive(0), derive(1))
    }

    /// f6(W, N1, N2, R, IOcap, A1, A2) = AES-CMAC_W(N1 ‖ N2 ‖ R ‖ IOcap ‖ A1 ‖ A2): the DHKey
    /// checks. `ioCapability` is AuthReq ‖ OOB flag ‖ IO capability (24 bits).
    public static func f6(w: AESBlock, n1: AESBlock, n2: AESBlock, r: AESBlock, ioCapability: UInt32, a1: LEAddress, a2: LEAddress) -> AESBlock {
        var cmac = AESCMAC(key: w)
        cmac.update(n1)
        cmac.update(n2)
        cmac.update(r)
        cmac.update(byte: UInt8(truncatingIfNeeded: ioCapability >> 16))
        cmac.update(byte: UInt8(truncatingIfNeeded: ioCapability >> 8))
        cmac.update(byte: UInt8(truncatingIfNeeded: ioCapability))
        feed(a1, into: &cmac)
        feed(a2, into: &cmac)
        return cmac.finalize()
    }

    /// g2(U, V, X, Y) = AES-CMAC_X(U ‖ V ‖ Y) mod 2^32: the numeric comparison value (shown mod 10^6).
    public static func g2(u: P256Coordinate, v: P256Coordinate, x: AESBlock, y: AESBlock) -> UInt32 {
        var cmac = AESCMAC(key: x)
        feed(u, into: &cmac)
        feed(v, into: &cmac)
        cmac.update(y)
        let tag = cmac.finalize()
        return UInt32(tag.bytes[12]) << 24 | UInt32(tag.bytes[13]) << 16 | UInt32(tag.bytes[14]) << 8 | UInt32(tag.bytes[15])
    }

    /// A 256-bit wire value, most significant octet first.
    static func feed(_ value: P256Coordinate, into cmac: inout AESCMAC) {
        for i in stride(from: P256Coordinate.byteCount - 1, through: 0, by: -1) { cmac.update(byte: value.bytes[i]) }
    }

    /// An address as the toolbox's 56 bits: the type (0 public, 1 random) then the address,
    /// most significant octet first.
    static func feed(_ address: LEAddress, into cmac: inout AESCMAC) {
        cmac.update(byte: address.type.isRandom ? 0x01 : 0x00)
        for shift in stride(from: 40, through: 0, by: -8) { cmac.update(byte: UInt8(truncatingIfNeeded: address.address.value >> UInt64(shift))) }
    }
}
