import CCrypto

/// Drains libcrypto's thread-local error queue into a ``CryptoError`` for `function`.
func lastOpenSSLError(_ function: String) -> CryptoError {
    let code = ERR_get_error()
    var reason = ""
    if code != 0 {
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    ERR_clear_error()
    return CryptoError(function: function, code: UInt(code), reason: reason)
}
