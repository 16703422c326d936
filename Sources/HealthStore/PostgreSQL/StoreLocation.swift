import CPostgres
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
    public static func parse(_ text: String) throws(MalformedURL) -> StoreLocation {
        guard isPostgreSQL(text) else { return .file(text) }
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &message) else {
            let reason = message.map { String(cString: $0) } ?? "libpq could not parse it"
            if let message { PQfreemem(message) }
            throw MalformedURL(url: redacted(text), reason: reason.trimmingTrailingNewlines)
        }
        PQconninfoFree(options)
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

extension String {
    var trimmingTrailingNewlines: String {
        var text = self
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        return text
    }
}
