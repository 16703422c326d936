// libFuzzer harness for the dashboard server's request gate (HealthHTTP `RequestGate`): the check
// of each request head before libmicrohttpd sees it (request line, Host against DNS rebinding, a
// second Host or Content-Length, a malformed length, a body, the head's size). The input is
// judged as it is and spliced after a valid request line and Host header (so mutations reach the
// header checks). Properties checked on every input:
//  1. no trap; deterministic;
//  2. a prefix of the bytes never decides differently from the whole: once a prefix is admitted
//     or refused, the whole is judged the same (the acceptor judges each time more bytes came);
//  3. an admitted head ends within the size limit, has a well-formed request line, at most one
//     Host header whose value is one the server answers to, at most one Content-Length of only
//     digits that fits in 64 bits, and no Transfer-Encoding (checked here by an independent split);
//  4. a refusal is 400, 413, 421, 431 or 505 with a message without control characters (it echoes
//     the client's Host and length, which must not carry a terminal escape into a log).
import HealthHTTP

let gate = RequestGate(allowedHosts: RequestGate.hosts(listeningOn: "127.0.0.1", port: 8080), maximumHeadBytes: 512)
let prefix = Array("GET /day?date=2026-11-30 HTTP/1.1\r\nHost: localhost:8080\r\n".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    check(bytes)
    check(prefix + bytes + Array("\r\n\r\n".utf8))
    return 0
}

func check(_ bytes: [UInt8]) {
    let verdict = gate.verdict(bytes)
    guard gate.verdict(bytes) == verdict else { fatalError("not deterministic") }
    for cut in Set([0, bytes.count / 3, bytes.count / 2, max(0, bytes.count - 1)] + (bytes.firstIndex(of: 0x0A).map { [$0, $0 + 1] } ?? [])) where cut <= bytes.count {
        let early = gate.verdict(bytes[..<cut])
        if early != .needMore && early != verdict {
            fatalError("the first \(cut) bytes were judged \(early), all \(bytes.count) \(verdict): \(bytes)")
        }
    }
    switch verdict {
    case .needMore:
        guard bytes.count < 512 else { fatalError("\(bytes.count) bytes without a decision") }
    case .admit:
        checkAdmitted(bytes)
    case .refuse(let status, let message):
        guard [400, 413, 421, 431, 505].contains(status) else { fatalError("status \(status)") }
        guard !message.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            fatalError("a control character in \(message.debugDescription)")
        }
    }
}

/// An independent reading of an admitted head.
func checkAdmitted(_ bytes: [UInt8]) {
    var end: Int?
    for index in bytes.indices where bytes[index] == 0x0A {
        if bytes[(index + 1)...].first == 0x0A { end = index + 2; break }
        if bytes[(index + 1)...].starts(with: [0x0D, 0x0A]) { end = index + 3; break }
    }
    guard let end, end <= 512 else { fatalError("admitted without a whole head within 512 bytes") }
    // Bytes, not Characters: a colon followed by a combining mark is one Character in Swift.
    var lines = bytes[..<end].split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
        line.last == 0x0D ? Array(line.dropLast()) : Array(line)
    }
    while lines.last?.isEmpty == true { lines.removeLast() }
    let requestLine = lines.first ?? []
    let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[2].starts(with: Array("HTTP/".utf8)) else {
        fatalError("admitted request line \(requestLine)")
    }
    var hosts: [[UInt8]] = []
    var lengths: [[UInt8]] = []
    func lowercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] { bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 } }
    func trimmed(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return Array(slice)
    }
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: 0x3A) else { fatalError("admitted header line without a colon: \(line)") }
        let name = lowercased(line[..<colon])
        let value = trimmed(line[(colon + 1)...])
        if name == Array("host".utf8) { hosts.append(value) }
        if name == Array("content-length".utf8) { lengths.append(value) }
        if name == Array("transfer-encoding".utf8) { fatalError("admitted a Transfer-Encoding") }
    }
    guard hosts.count <= 1, lengths.count <= 1 else { fatalError("admitted \(hosts.count) Host and \(lengths.count) Content-Length headers") }
    if let host = hosts.first, !gate.allowedHosts.contains(String(decoding: lowercased(host[...]), as: UTF8.self)) {
        fatalError("admitted Host \(host)")
    }
    if let length = lengths.first, length.isEmpty || !length.allSatisfy({ (0x30...0x39).contains($0) }) || UInt64(String(decoding: length, as: UTF8.self)) == nil {
        fatalError("admitted Content-Length \(length)")
    }
}
