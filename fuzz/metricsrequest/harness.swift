// libFuzzer harness for the metrics server's request-head parser (BandKitSystem `HTTPRequestHead`):
// what `band gateway --metrics` decides from a client's first bytes. The input is parsed as it is
// and spliced after a valid request line (so mutations reach the header rules). Properties checked
// on every input:
//  1. no trap; deterministic;
//  2. a prefix of the bytes never decides differently from the whole (the server parses again as
//     bytes arrive and acts on the first decision);
//  3. a complete head lies within the limit and ends in a blank line; its method is a token of at
//     most 16 bytes, its target visible ASCII, its version 1.0 or 1.1, HTTP/1.1 has a Host; the
//     Host holds no control character;
//  4. a refusal is 400, 431 or 505 with a reason without control characters; no decision yet
//     only below the limit.
import BandKitSystem

let limit = 512
let prefix = Array("GET /metrics HTTP/1.1\r\n".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    check(bytes)
    check(prefix + bytes)
    check(prefix + bytes + Array("\r\n\r\n".utf8))
    return 0
}

func check(_ bytes: [UInt8]) {
    let whole = HTTPRequestHead.parse(bytes, maximumBytes: limit)
    guard HTTPRequestHead.parse(bytes, maximumBytes: limit) == whole else { fatalError("not deterministic") }
    var cuts: Set<Int> = [0, bytes.count / 3, bytes.count / 2, max(0, bytes.count - 1)]
    for (index, byte) in bytes.enumerated() where byte == 0x0A { cuts.formUnion([index, index + 1]) }
    for cut in cuts where cut <= bytes.count {
        let early = HTTPRequestHead.parse(bytes[..<cut], maximumBytes: limit)
        if early != .needMore && early != whole {
            fatalError("the first \(cut) bytes were judged \(early), all \(bytes.count) \(whole)")
        }
    }
    switch whole {
    case .needMore:
        guard bytes.count < limit else { fatalError("\(bytes.count) bytes without a decision") }
    case .invalid(let status, let reason):
        guard [400, 431, 505].contains(status) else { fatalError("status \(status)") }
        guard !reason.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { fatalError("control character in \(reason)") }
    case .complete(let head):
        guard head.length <= limit, head.length <= bytes.count, bytes[head.length - 1] == 0x0A else { fatalError("head length \(head.length)") }
        let before = bytes[..<(head.length - 1)]
        guard before.last == 0x0A || (before.last == 0x0D && before.dropLast().last == 0x0A) else { fatalError("no blank line at the end") }
        guard (1...16).contains(head.method.utf8.count), !head.method.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: ":") }) else {
            fatalError("method \(head.method.utf8.map { $0 })")
        }
        guard !head.target.isEmpty, head.target.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { fatalError("target \(head.target)") }
        guard head.minorVersion == 0 || head.minorVersion == 1 else { fatalError("version 1.\(head.minorVersion)") }
        guard head.minorVersion == 0 || head.host != nil else { fatalError("HTTP/1.1 without Host") }
        if let host = head.host, host.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }) { fatalError("control character in Host") }
        guard bytes.starts(with: Array((head.method + " " + head.target + " HTTP/1.\(head.minorVersion)").utf8)) else {
            fatalError("the request line is not the head's first bytes")
        }
    }
}
