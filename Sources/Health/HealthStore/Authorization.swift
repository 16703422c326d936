import HealthModel

/// The state of one permission (read or write) of one app for one type.
public enum AuthorizationStatus: String, Hashable, Sendable {
    /// Never asked and never set: treated as denied until requested or granted.
    case notDetermined
    case denied
    case granted
}

/// An app's permissions for one type or characteristic.
public struct Authorization: Hashable, Sendable {
    public var read: AuthorizationStatus
    public var write: AuthorizationStatus
    public init(read: AuthorizationStatus, write: AuthorizationStatus) {
        self.read = read
        self.write = write
    }
}

/// Which permission a grant or revocation changes.
public enum Access: String, Hashable, Sendable {
    case read, write
}

/// Authorization follows HealthKit (see docs/architecture.md, "Authorization"):
///
/// - Grants are per app, per person, per type (or characteristic), read and write separately:
///   a grant made on a store opened for one person says nothing about another person's data.
/// - ``HealthStore/requestAuthorization(for:toShare:read:)`` is the first-use prompt. This store's
///   policy answers it without asking: whatever is *not determined* becomes granted; whatever the
///   user set (granted or denied, with `health grant` / `health revoke`) stays as set.
/// - A write without a write grant throws ``HealthStoreError/notAuthorized(app:type:)``.
/// - A read without a read grant is not an error: the app sees only the samples it wrote itself,
///   so "denied" looks exactly like "no data" (HealthKit's privacy rule).
/// - Characteristics can be granted for reading only; only the owner writes them.
extension HealthStore {
    func authorization(appID: Int64?, type: String, _ connection: Connection) throws(HealthStoreError) -> Authorization {
        guard let appID else { return Authorization(read: .notDetermined, write: .notDetermined) }
        let select = try connection.cached(
            "SELECT can_read, can_write FROM \"authorization\" WHERE app_id = ? AND person_id = ? AND type = ?").get()
        defer { select.reset() }
        select.bind(1, appID)
        select.bind(2, personID)
        select.bind(3, type)
        guard try select.step().get() else { return Authorization(read: .notDetermined, write: .notDetermined) }
        func status(_ column: Int32) -> AuthorizationStatus {
            select.isNull(column) ? .notDetermined : select.int64(column) != 0 ? .granted : .denied
        }
        return Authorization(read: status(0), write: status(1))
    }

    /// The type identifiers `appID` has a write grant for (for this person), read in one
    /// statement: a transaction checks every type it saves against this, not with a query each.
    func writeGrants(appID: Int64?, _ connection: Connection) throws(HealthStoreError) -> Set<String> {
        guard let appID else { return [] }
        let select = try connection.cached(
            "SELECT type, can_write FROM \"authorization\" WHERE app_id = ? AND person_id = ?").get()
        defer { select.reset() }
        select.bind(1, appID)
        select.bind(2, personID)
        var granted: Set<String> = []
        while try select.step().get() {
            if !select.isNull(1), select.int64(1) != 0, let type = select.text(0) { granted.insert(type) }
        }
        return granted
    }

    /// The permissions of `app` for `type` (a sample type or characteristic identifier).
    public func authorization(app: String, type: String) throws(HealthStoreError) -> Authorization {
        if app == AppIdentity.owner.id { return Authorization(read: .granted, write: .granted) }
        return try withConnection { (connection) throws(HealthStoreError) -> Authorization in
            try authorization(appID: existingAppID(app, connection), type: type, connection)
        }
    }

    /// Sets one permission, as the user does in the Health app. Owner-only by construction:
    /// this is what `health grant` and `health revoke` call.
    public func setAuthorization(app: String, type: String, access: Access, granted: Bool) throws {
        try validateAuthorizable(type: type, access: access)
        try write(as: .owner) { transaction in
            let appID = try transaction.appID(app)
            try self.setPermission(appID: appID, type: type, access: access, value: granted, onlyIfUndetermined: false,
                                   transaction.connection)
            transaction.grantsChanged()
        }
    }

    /// The first-use request of an app (HealthKit `requestAuthorization(toShare:read:)`): grants
    /// each permission that was never decided; leaves the user's decisions alone. Returns the
    /// resulting permissions.
    @discardableResult
    public func requestAuthorization(for app: AppIdentity, toShare: Set<SampleType>, read: Set<SampleType>,
                                     readCharacteristics: Set<CharacteristicType> = []) throws -> [String: Authorization] {
        try write(as: app) { transaction in
            let appID = try transaction.appID(app.id)
            for type in toShare {
                try self.setPermission(appID: appID, type: type.identifier, access: .write, value: true,
                                       onlyIfUndetermined: true, transaction.connection)
            }
            for identifier in read.map(\.identifier) + readCharacteristics.map(\.rawValue) {
                try self.setPermission(appID: appID, type: identifier, access: .read, value: true,
                                       onlyIfUndetermined: true, transaction.connection)
            }
            transaction.grantsChanged()
            var result: [String: Authorization] = [:]
            for identifier in toShare.map(\.identifier) + read.map(\.identifier) + readCharacteristics.map(\.rawValue) {
                result[identifier] = try self.authorization(appID: appID, type: identifier, transaction.connection)
            }
            return result
        }
    }

    private func validateAuthorizable(type: String, access: Access) throws(HealthStoreError) {
        if CharacteristicType(rawValue: type) != nil {
            if access == .write { throw .ownerOnly(operation: "writing characteristics", app: "any app") }
            return
        }
        guard SampleType.all.contains(where: { $0.identifier == type }) else {
            throw .model(.unknownType(type))
        }
    }

    private func setPermission(appID: Int64, type: String, access: Access, value: Bool, onlyIfUndetermined: Bool,
                               _ connection: Connection) throws(HealthStoreError) {
        let column = access == .read ? "can_read" : "can_write"
        let keep = onlyIfUndetermined ? "coalesce(\"authorization\".\(column), excluded.\(column))" : "excluded.\(column)"
        let upsert = try connection.cached("""
            INSERT INTO "authorization" (app_id, person_id, type, \(column)) VALUES (?, ?, ?, ?)
            ON CONFLICT (app_id, person_id, type) DO UPDATE SET \(column) = \(keep)
            """).get()
        upsert.bind(1, appID)
        upsert.bind(2, personID)
        upsert.bind(3, type)
        upsert.bind(4, value)
        try upsert.run().get()
    }

    /// The app's visibility for one type: nil when it may read every sample, else the app's own
    /// row id (-1 when it has none), the only source whose samples it may see.
    func visibilityFilter(for app: AppIdentity, type: SampleType, _ connection: Connection) throws(HealthStoreError) -> Int64? {
        if app.isOwner { return nil }
        let appID = try existingAppID(app.id, connection)
        if try authorization(appID: appID, type: type.identifier, connection).read == .granted { return nil }
        return appID ?? -1
    }
}
