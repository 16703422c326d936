import FirmwareCrypto

/// Bytes from a hex string with optional spaces (test vectors are written as NIST and the RFCs print them).
func hexBytes(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "odd hex digit count in \(text)")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

func hexString(_ digest: Digest256) -> String {
    digest.withUnsafeBytes { $0.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
}

func sha256(_ bytes: [UInt8]) -> Digest256 { bytes.withUnsafeBytes { SHA256.hash($0) } }

func hmac(key: [UInt8], message: [UInt8]) -> Digest256 {
    key.withUnsafeBytes { k in message.withUnsafeBytes { m in HMAC.authenticationCode(for: m, key: k) } }
}
