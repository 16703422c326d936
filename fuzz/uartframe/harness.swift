// libFuzzer harness for the UART frame decoder between the firmware and the host bridge
// (UARTFraming.UARTFrameDecoder). The first byte picks the chunk size (1–32) the rest is fed in.
//
// Properties checked on every input:
//  1. decoding never traps, whatever the bytes;
//  2. every byte is accounted for: delivered frames' bytes + discarded bytes + bytes still
//     buffered = the input's length, and the buffer never holds more than one frame;
//  3. each delivered frame is a checked frame of the input: its re-encoding occurs in the input;
//  4. fed in chunks or all at once, the decoder delivers the same frames and the same counters.
import UARTFraming

struct Delivered: Equatable { var channel: UInt8; var payload: [UInt8] }

func run(_ input: UnsafeRawBufferPointer, chunk: Int) -> ([Delivered], UARTFrameDecoder.Counters, Int) {
    var decoder = UARTFrameDecoder()
    var delivered: [Delivered] = []
    var start = 0
    while start < input.count {
        let end = min(start + chunk, input.count)
        decoder.decode(UnsafeRawBufferPointer(rebasing: input[start..<end])) { channel, payload in
            delivered.append(Delivered(channel: channel.rawValue, payload: Array(payload)))
        }
        precondition(decoder.bufferedByteCount < UARTFrame.maximumFrameByteCount, "buffer holds \(decoder.bufferedByteCount) bytes")
        start = end
    }
    return (delivered, decoder.counters, decoder.bufferedByteCount)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUARTFrame(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size > 0, let data else { return 0 }
    let chunk = Int(data[0] % 32) + 1
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    let (frames, counters, buffered) = run(input, chunk: chunk)
    let frameBytes = frames.reduce(0) { $0 + UARTFrame.headerByteCount + $1.payload.count + UARTFrame.trailerByteCount }
    precondition(frameBytes + Int(counters.discardedBytes) + buffered == input.count,
                 "\(frameBytes) in frames + \(counters.discardedBytes) discarded + \(buffered) buffered ≠ \(input.count)")
    precondition(counters.frames == UInt32(frames.count))
    let bytes = Array(input)
    var encoded = [UInt8](repeating: 0, count: UARTFrame.maximumFrameByteCount)
    for frame in frames {
        let n = frame.payload.withUnsafeBytes { p in
            encoded.withUnsafeMutableBytes { UARTFrame.encode(channel: UARTChannel(rawValue: frame.channel), payload: p, into: $0) }
        }!
        let needle = Array(encoded.prefix(n))
        precondition(bytes.count >= n && (0...(bytes.count - n)).contains { bytes[$0..<($0 + n)].elementsEqual(needle) },
                     "a delivered frame is not in the input")
    }
    let (whole, wholeCounters, wholeBuffered) = run(input, chunk: max(input.count, 1))
    precondition(whole == frames && wholeCounters == counters && wholeBuffered == buffered, "chunked and whole decoding differ")
    return 0
}
