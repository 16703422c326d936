// libFuzzer harness for the ATT PDU decoder (BandATT.ATTPDU).
//
// Properties checked on every input:
//  1. decoding never traps, whatever the bytes;
//  2. a decoded PDU re-encodes to exactly the input, except a Read By Type / Read By Group
//     Type Request whose 128-bit type is a SIG UUID (re-encoded in its 2-byte form);
//  3. encode → decode → encode is stable: the second decode equals the first and the two
//     encodings are identical.
import BandATT
import BandWire

nonisolated(unsafe) let first = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)
nonisolated(unsafe) let second = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)

func encode(_ pdu: ATTPDU, into buffer: UnsafeMutableRawBufferPointer) -> UnsafeRawBufferPointer {
    var writer = ByteWriter(buffer)
    pdu.encode(into: &writer)
    guard let count = try? writer.finish() else { fatalError("encoding a decoded PDU overflowed 2048 bytes") }
    return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count])
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzATTPDU(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let pdu: ATTPDU
    do {
        pdu = try ATTPDU(parsingAll: input)
    } catch {
        precondition(error.offset >= 0 && error.offset <= size, "error offset \(error.offset) outside a \(size)-byte PDU")
        return 0
    }
    let encoded = encode(pdu, into: first)
    let canonicalizesUUID = (pdu.opcode == .readByTypeRequest || pdu.opcode == .readByGroupTypeRequest) && size == 21
    if !canonicalizesUUID {
        precondition(encoded.elementsEqual(input), "\(pdu.opcode) does not re-encode to its input")
    }
    let again: ATTPDU
    do {
        again = try ATTPDU(parsingAll: encoded)
    } catch {
        fatalError("\(pdu.opcode) re-encoding does not decode: \(error)")
    }
    precondition(again == pdu, "\(pdu.opcode) changed over encode → decode")
    precondition(encode(again, into: second).elementsEqual(encoded), "\(pdu.opcode) encodes differently the second time")
    return 0
}
