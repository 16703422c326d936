// libFuzzer harness for BandBlueZ's decoders: advertising data, HCI events, management
// packets and events, long-term keys, and the auto-connect commands and replies (Add Device,
// Remove Device, Get Connections). The first input byte picks the decoder; the rest is its input.
//
// Properties checked on every input:
//  1. decoding never traps, and a refusal's byte offset lies inside the input;
//  2. AdvertisingData re-encodes to the input up to its end-of-data marker (a zero length),
//     and everything after the marker is padding;
//  3. HCI events other than advertising reports, management packets, long-term keys, Add Device
//     and Remove Device re-encode to exactly the input;
//  4. advertising reports and connection lists (which skip BR/EDR peers) are stable:
//     decode → encode → decode gives the same value.
import BandBlueZ
import BandWire

nonisolated(unsafe) let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)

func encoded(_ body: (inout ByteWriter) -> Void) -> [UInt8] {
    var writer = ByteWriter(scratch)
    body(&writer)
    guard let count = try? writer.finish() else { fatalError("re-encoding overflowed 4096 bytes") }
    return Array(scratch[0..<count])
}

func checkOffset(_ error: ParseError, _ size: Int) {
    precondition(error.offset >= 0 && error.offset <= size, "error offset \(error.offset) outside \(size) bytes")
}

func fuzzAdvertisingData(_ input: UnsafeRawBufferPointer) {
    let data: AdvertisingData
    do { data = try AdvertisingData(parsingAll: input) } catch { checkOffset(error, input.count); return }
    let again = encoded { data.encode(into: &$0) }
    precondition(again.count <= input.count && again.elementsEqual(input.prefix(again.count)), "AD does not re-encode to its input")
    if again.count < input.count { precondition(input[again.count] == 0, "AD stopped before its end without a zero length") }
}

func fuzzHCIEvent(_ input: UnsafeRawBufferPointer) {
    let event: HCIEventPacket
    do { event = try HCIEventPacket(parsingAll: input) } catch { checkOffset(error, input.count); return }
    let again = encoded { event.encode(into: &$0) }
    if case .advertisingReports = event.body {
        let reparsed: HCIEventPacket
        do { reparsed = try HCIEventPacket(parsingAll: again) } catch { fatalError("re-encoded reports do not decode: \(error)") }
        precondition(reparsed == event, "advertising reports are not stable through encode")
    } else {
        precondition(again.elementsEqual(input), "HCI event does not re-encode to its input")
    }
}

func fuzzManagement(_ input: UnsafeRawBufferPointer) {
    let packet: ManagementPacket
    do { packet = try ManagementPacket(parsingAll: input) } catch { checkOffset(error, input.count); return }
    precondition(packet.bytes.elementsEqual(input), "management packet does not re-encode to its input")
    do { _ = try ManagementEvent(packet) } catch { checkOffset(error, input.count) }
}

func fuzzLongTermKey(_ input: UnsafeRawBufferPointer) {
    let key: LongTermKey
    do { key = try LongTermKey(parsingAll: input) } catch { checkOffset(error, input.count); return }
    precondition(encoded { key.encode(into: &$0) }.elementsEqual(input), "LTK does not re-encode to its input")
}

/// A fixed-size command block: decodes and re-encodes exactly, or is refused inside the input.
func fuzzExact<Packet: WireCodable>(_ type: Packet.Type, _ input: UnsafeRawBufferPointer) {
    let packet: Packet
    do { packet = try Packet(parsingAll: input) } catch { checkOffset(error, input.count); return }
    precondition(encoded { packet.encode(into: &$0) }.elementsEqual(input), "\(Packet.self) does not re-encode to its input")
}

func fuzzConnectionList(_ input: UnsafeRawBufferPointer) {
    let list: ConnectionList
    do { list = try ConnectionList(parsingAll: input) } catch { checkOffset(error, input.count); return }
    let again = encoded { list.encode(into: &$0) }
    let reparsed: ConnectionList
    do { reparsed = try ConnectionList(parsingAll: again) } catch { fatalError("a re-encoded connection list does not decode: \(error)") }
    precondition(reparsed == list, "a connection list is not stable through encode")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBlueZ(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size > 0, let data else { return 0 }
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    switch data[0] % 8 {
    case 0: fuzzAdvertisingData(input)
    case 1: fuzzHCIEvent(input)
    case 2: fuzzManagement(input)
    case 4: fuzzExact(AddDevice.self, input)
    case 5: fuzzExact(RemoveDevice.self, input)
    case 6: fuzzConnectionList(input)
    default: fuzzLongTermKey(input)
    }
    return 0
}
