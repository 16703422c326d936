import Foundation
internal import HealthModel

/// The running app's identity: `BANDKIT_APP_ID` (and `BANDKIT_APP_VERSION`, default `1`) from
/// the environment, else the process's name. HealthKit takes it from the app's bundle.
enum AppIdentityResolver {
    static let identifierVariable = "BANDKIT_APP_ID"
    static let versionVariable = "BANDKIT_APP_VERSION"

    /// What ``HKHealthStore/setDefault(appIdentifier:appVersion:storePath:)`` set, if anything.
    private static let configured = NSLock()
    nonisolated(unsafe) private static var configuredDefault: (app: AppIdentity, storePath: String?)?

    static var processDefault: (app: AppIdentity, storePath: String?)? {
        get { configured.withLock { configuredDefault } }
        set { configured.withLock { configuredDefault = newValue } }
    }

    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> AppIdentity {
        if let configured = processDefault { return configured.app }
        let id = environment[identifierVariable].flatMap { $0.isEmpty ? nil : $0 } ?? ProcessInfo.processInfo.processName
        return AppIdentity(id: id, version: environment[versionVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "1")
    }

    /// Why `identity` cannot act as an app, or nil. The owner's name would bypass every grant.
    static func problem(with identity: AppIdentity) -> String? {
        if identity.id.isEmpty { return "the app identifier is empty" }
        if identity.isOwner {
            return "'\(identity.id)' is the store owner's name (the health command), not an app's; set \(identifierVariable)"
        }
        if identity.id.utf8.count > 255 || identity.id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the app identifier must be 1-255 bytes without control characters"
        }
        return nil
    }
}
