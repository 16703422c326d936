/// A libcrypto call failed.
///
/// Carries the name of the OpenSSL function and the first code from OpenSSL's error queue
/// (`ERR_get_error`), so a failure says which primitive broke and why, not just "crypto failed".
public struct CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The libcrypto function that reported the failure, e.g. `"EVP_MAC_init"`.
    public var function: String
    /// OpenSSL's packed error code (0 when the queue was empty).
    public var code: UInt
    /// OpenSSL's text for `code`, when it has one.
    public var reason: String

    public init(function: String, code: UInt, reason: String) {
        self.function = function
        self.code = code
        self.reason = reason
    }

    public var description: String {
        reason.isEmpty ? "\(function) failed (OpenSSL error \(code))" : "\(function) failed: \(reason)"
    }
}
