import FoundationEssentials

/// Where a store lives: a SQLite file (a path) or a PostgreSQL database (a `postgresql://` or
/// `postgres://` URL, as libpq reads it: host, port, database, user, `sslmode`, `options`, …).
///
/// Credentials may sit in the URL (`postgresql://user:secret@host/db`), in `PGPASSFILE` /
/// `~/.pgpass` or in `PGPASSWORD`; libpq reads all three. Nothing BandKit prints carries them:
/// every message names the store by ``redacted``.
public enum StoreLocation: Hashable, Sendable {
    case file(String)
    case postgresql(url: String)

    /// A malformed PostgreSQL URL (a usage error: exit 64).
    public struct MalformedURL: Error, Hashable, Sendable, CustomStringConvertible {
        /// The URL with its password replaced.
        public var url: String
        /// libpq's reason.
        public var reason: String
        public var description: String { "\(url) is not a valid PostgreSQL URL: \(reason)" }
    }

    /// Whether `text` names a PostgreSQL database rather than a file.
    public static func isPostgreSQL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://")
    }

    /// The location `text` names; a PostgreSQL URL libpq cannot parse throws ``MalformedURL``.
    ///
    /// Only libpq knows its URL syntax: without a PostgreSQL engine registered (module
    /// HealthStorePostgreSQL, `HealthStore.enablePostgreSQL()`) a PostgreSQL URL is returned as
    /// given, and opening it fails saying the build has no PostgreSQL engine.
    public static func parse(_ text: String) throws(MalformedURL) -> StoreLocation {
        try parse(text, connectionInfoProblem: PostgreSQLEngines.registered?.connectionInfoProblem)
    }

    /// ``parse(_:)`` with libpq's verdict on a URL given (nil: no engine to ask).
    package static func parse(_ text: String, connectionInfoProblem: ((String) -> String?)?) throws(MalformedURL) -> StoreLocation {
        guard isPostgreSQL(text) else { return .file(text) }
        if let reason = connectionInfoProblem?(text) {
            throw MalformedURL(url: redacted(text), reason: scrubbed(reason.trimmingTrailingNewlines, of: text))
        }
        return .postgresql(url: text)
    }

    /// The text to show: the path, or the URL without its password.
    public var redacted: String {
        switch self {
        case .file(let path): return path
        case .postgresql(let url): return Self.redacted(url)
        }
    }

    /// `url` with the password of its user info and any `password=` parameter replaced by `***`.
    public static func redacted(_ url: String) -> String {
        guard isPostgreSQL(url), let schemeEnd = url.firstRange(of: "://") else { return url }
        var rest = Substring(url[schemeEnd.upperBound...])
        var out = String(url[..<schemeEnd.upperBound])
        // User info ends at the last '@' before the path or query.
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        if let at = rest[..<authorityEnd].lastIndex(of: "@") {
            let userInfo = rest[..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                out += userInfo[..<colon] + ":***"
            } else {
                out += userInfo
            }
            out += "@"
            rest = rest[rest.index(after: at)...]
        }
        guard let question = rest.firstIndex(of: "?") else { return out + rest }
        out += rest[...question]
        let parameters = rest[rest.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
        out += parameters.map { parameter -> String in
            let key = parameter.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            return key.lowercased() == "password" ? "password=***" : String(parameter)
        }.joined(separator: "&")
        return out
    }
}

extension StoreLocation {
    /// `message` (libpq's, which may quote the URL it was given) with the URL replaced by its
    /// redacted form and every password it holds, raw or percent-decoded, replaced by `***`.
    public static func scrubbed(_ message: String, of url: String) -> String {
        var text = message.replacing(url, with: redacted(url))
        for secret in passwords(in: url) where !secret.isEmpty {
            text = text.replacing(secret, with: "***")
        }
        return text
    }

    /// The passwords a URL carries (user info and `password=`), as written and percent-decoded.
    static func passwords(in url: String) -> [String] {
        guard let schemeEnd = url.firstRange(of: "://") else { return [] }
        let rest = url[schemeEnd.upperBound...]
        var found: [String] = []
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        if let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
            found.append(String(rest[rest.index(after: colon)..<at]))
        }
        if let question = rest.firstIndex(of: "?") {
            for parameter in rest[rest.index(after: question)...].split(separator: "&") {
                let parts = parameter.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "password" { found.append(String(parts[1])) }
            }
        }
        return found + found.compactMap(percentDecoded).filter { !found.contains($0) }
    }

    /// RFC 3986 percent-decoding; nil when an escape is broken or the bytes are not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension String {
    package var trimmingTrailingNewlines: String {
        var text = self
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        return text
    }
}
