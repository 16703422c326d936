import CCrypto

/// HMAC-SHA256 (RFC 2104, FIPS 198-1) computed by OpenSSL's `EVP_MAC` "HMAC" implementation.
///
/// Streaming: create with the key, ``update(_:)`` with each part of the message, then
/// ``finalize()``. The band's authentication messages are built from several fields, and
/// feeding them one by one avoids assembling a temporary buffer.
///
/// ```swift
/// var mac = try HMACSHA256(key: keyBytes)
/// try mac.update(labelBytes)
/// try mac.update(nonceBytes)
/// let tag = try mac.finalize()
/// ```
public struct HMACSHA256: ~Copyable {
    private let context: OpaquePointer

    /// Starts a MAC under `key` (any length; RFC 2104 hashes keys longer than the block size).
    public init(key: UnsafeRawBufferPointer) throws(CryptoError) {
        context = try Self.makeContext(key: key)
    }

    /// Starts a MAC under a key held in an array (cold paths, tests).
    public init(key: [UInt8]) throws(CryptoError) {
        let result: Result<OpaquePointer, CryptoError> = key.withUnsafeBytes { raw in
            do throws(CryptoError) { return .success(try Self.makeContext(key: raw)) } catch { return .failure(error) }
        }
        context = try result.get()
    }

    private static func makeContext(key: UnsafeRawBufferPointer) throws(CryptoError) -> OpaquePointer {
        guard let mac = algorithm else { throw lastOpenSSLError("EVP_MAC_fetch") }
        guard let context = EVP_MAC_CTX_new(mac) else { throw lastOpenSSLError("EVP_MAC_CTX_new") }
        // OSSL_PARAM keeps the pointers it is given, so both strings must outlive EVP_MAC_init:
        // a string literal passed straight to the constructor would be a temporary.
        var parameterName = Array("digest".utf8CString)
        var digestName = Array("SHA256".utf8CString)
        let ok = parameterName.withUnsafeMutableBufferPointer { parameter in
            digestName.withUnsafeMutableBufferPointer { digest -> Int32 in
                var params = [
                    OSSL_PARAM_construct_utf8_string(parameter.baseAddress, digest.baseAddress, 0),
                    OSSL_PARAM_construct_end(),
                ]
                // A zero-length key still needs a valid pointer for EVP_MAC_init.
                var empty: UInt8 = 0
                return withUnsafeMutablePointer(to: &empty) { emptyPointer in
                    let keyPointer = key.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(emptyPointer)
                    return EVP_MAC_init(context, keyPointer, key.count, &params)
                }
            }
        }
        guard ok == 1 else {
            let error = lastOpenSSLError("EVP_MAC_init")
            EVP_MAC_CTX_free(context)
            throw error
        }
        return context
    }

    deinit { EVP_MAC_CTX_free(context) }

    /// Feeds the next part of the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) throws(CryptoError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard EVP_MAC_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count) == 1 else {
            throw lastOpenSSLError("EVP_MAC_update")
        }
    }

    /// Feeds bytes from an array (cold paths, tests).
    public mutating func update(_ bytes: [UInt8]) throws(CryptoError) {
        let result: Result<Void, CryptoError> = bytes.withUnsafeBytes { raw in
            do throws(CryptoError) { try update(raw); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// The 32-byte tag.
    public consuming func finalize() throws(CryptoError) -> SHA256Digest {
        var out = [UInt8](repeating: 0, count: SHA256Digest.byteCount)
        var written = 0
        let ok = out.withUnsafeMutableBufferPointer { buffer in
            EVP_MAC_final(context, buffer.baseAddress, &written, buffer.count)
        }
        guard ok == 1, written == SHA256Digest.byteCount else { throw lastOpenSSLError("EVP_MAC_final") }
        return out.withUnsafeBytes { SHA256Digest($0) }
    }

    /// One-shot convenience: the tag of `message` under `key`.
    public static func authenticationCode(for message: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws(CryptoError) -> SHA256Digest {
        var mac = try HMACSHA256(key: key)
        try mac.update(message)
        return try mac.finalize()
    }

    /// One-shot convenience over arrays (cold paths, tests).
    public static func authenticationCode(for message: [UInt8], key: [UInt8]) throws(CryptoError) -> SHA256Digest {
        let result: Result<SHA256Digest, CryptoError> = message.withUnsafeBytes { m in
            key.withUnsafeBytes { k in
                do throws(CryptoError) { return .success(try authenticationCode(for: m, key: k)) } catch { return .failure(error) }
            }
        }
        return try result.get()
    }

    /// The HMAC implementation, fetched once per process (fetching is the expensive part).
    nonisolated(unsafe) private static let algorithm: OpaquePointer? = EVP_MAC_fetch(nil, "HMAC", nil)
}
