// libFuzzer harness for the band activity service's decoders (BandProtocol).
//
// The first input byte picks the decoder; the rest is the value. Properties:
//  1. decoding never traps, and an error's offset lies inside the input;
//  2. a decoded value re-encodes to exactly the input (every layout is canonical);
//  3. the re-encoding decodes to an equal value.
import BandProtocol
import BandWire

nonisolated(unsafe) let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 8)

func check<T: WireCodable & Equatable>(_ type: T.Type, _ input: UnsafeRawBufferPointer) {
    let value: T
    do {
        value = try T(parsingAll: input)
    } catch {
        precondition(error.offset >= 0 && error.offset <= input.count, "\(T.self): error offset \(error.offset) outside \(input.count) bytes")
        return
    }
    var writer = ByteWriter(scratch)
    value.encode(into: &writer)
    guard let count = try? writer.finish() else { fatalError("\(T.self) re-encoding overflowed") }
    let encoded = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(scratch)[0..<count])
    precondition(encoded.elementsEqual(input), "\(T.self) does not re-encode to its input")
    precondition((try? T(parsingAll: encoded)) == value, "\(T.self) changed over encode → decode")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBandProtocol(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size >= 1, let data else { return 0 }
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    switch data[0] % 8 {
    case 0: check(LiveActivity.self, input)
    case 1: check(MinuteRecord.self, input)
    case 2: check(HistoryRequest.self, input)
    case 3: check(HistoryResponse.self, input)
    case 4: check(HistoryDataPacket.self, input)
    case 5: check(AuthRequest.self, input)
    case 6: check(AuthResponse.self, input)
    default:
        if let packet = try? HistoryDataPacket(parsingAll: input) {
            for index in 0..<packet.recordCount { _ = try? packet.record(at: index) }
        }
    }
    return 0
}
