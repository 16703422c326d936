import FoundationEssentials
import HealthModel

/// One person whose health the store holds (a row of `person`).
///
/// A store holds several people (a household, a clinic, a study); a ``HealthStore`` instance
/// acts for one of them, chosen when it is opened (``HealthStore/init(path:cacheKiB:readOnly:person:)``).
/// Samples, workouts, statistics, the change feed, grants and characteristics are that person's.
/// Apps, devices, the source order and app state are shared by the store.
public struct Person: Hashable, Sendable {
    /// The row id: 1 is the default person, the one every store had before people existed.
    public let id: Int64
    public let name: String
    public let created: Date

    public static let defaultID: Int64 = 1
    /// The default person's name in a new store (it can be renamed).
    public static let defaultName = "default"

    public var isDefault: Bool { id == Person.defaultID }

    /// The longest name accepted, in characters.
    public static let maximumNameLength = 64

    /// Why `name` cannot name a person, or nil when it can: 1…64 characters, no control or
    /// bidirectional-override characters (a name reaches terminals, JSON and HTML), no space at
    /// either end (two names differing only there would look the same).
    public static func problem(withName name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.count > maximumNameLength { return "is longer than \(maximumNameLength) characters" }
        for scalar in name.unicodeScalars {
            if scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 {
                return "contains the control character U+\(String(scalar.value, radix: 16, uppercase: true))"
            }
        }
        if name.first?.isWhitespace == true || name.last?.isWhitespace == true { return "begins or ends with a space" }
        return nil
    }
}

extension HealthStore {
    /// The person `name` names (the default person when nil), read through `connection`.
    static func resolvePerson(_ name: String?, _ connection: Connection) throws(HealthStoreError) -> Person {
        let select = try connection.cached(name == nil
            ? "SELECT id, name, created_us FROM person WHERE id = ?"
            : "SELECT id, name, created_us FROM person WHERE name = ?").get()
        defer { select.reset() }
        if let name { select.bind(1, name) } else { select.bind(1, Person.defaultID) }
        guard try select.step().get() else {
            throw .unknownPerson(name ?? Person.defaultName)
        }
        return Person(id: select.int64(0), name: select.text(1) ?? "",
                      created: Date(microsecondsSince1970: select.int64(2)))
    }

    /// ``resolvePerson(_:_:)`` while opening: an unknown name stays ``HealthStoreError/unknownPerson(_:)``
    /// (the caller's mistake), anything else names the store and the step.
    static func openingPerson(_ name: String?, _ connection: Connection, path: String) throws(HealthStoreError) -> Person {
        do {
            return try resolvePerson(name, connection)
        } catch {
            if case .unknownPerson = error { throw error }
            throw openFailure(path: path, step: "read the people", error)
        }
    }

    /// Every person in the store, by id (the default person first).
    public func people() throws -> [Person] {
        try read { connection in
            let select = try connection.cached("SELECT id, name, created_us FROM person ORDER BY id").get()
            defer { select.reset() }
            var people: [Person] = []
            while try select.step().get() {
                people.append(Person(id: select.int64(0), name: select.text(1) ?? "",
                                     created: Date(microsecondsSince1970: select.int64(2))))
            }
            return people
        }
    }

    /// Adds a person (`health people add`). Owner-only by construction, like grants.
    @discardableResult
    public func addPerson(named name: String, now: Date = Date()) throws -> Person {
        if let problem = Person.problem(withName: name) { throw HealthStoreError.invalidPersonName(name, problem) }
        return try write(as: .owner) { transaction in
            let connection = transaction.connection
            if try connection.scalar("SELECT id FROM person WHERE name = ?", { $0.bind(1, name) }).get() != nil {
                throw HealthStoreError.personExists(name)
            }
            let created = now.microsecondsSince1970
            let id = try connection.scalar("INSERT INTO person (name, created_us) VALUES (?, ?) RETURNING id") { insert in
                insert.bind(1, name)
                insert.bind(2, created)
            }.get() ?? 0
            return Person(id: id, name: name, created: Date(microsecondsSince1970: created))
        }
    }

    /// Renames a person (`health people rename`); their data stays theirs (rows hold the id).
    public func renamePerson(_ name: String, to newName: String) throws {
        if let problem = Person.problem(withName: newName) { throw HealthStoreError.invalidPersonName(newName, problem) }
        try write(as: .owner) { transaction in
            let connection = transaction.connection
            guard let id = try connection.scalar("SELECT id FROM person WHERE name = ?", { $0.bind(1, name) }).get() else {
                throw HealthStoreError.unknownPerson(name)
            }
            if name == newName { return }
            if try connection.scalar("SELECT id FROM person WHERE name = ?", { $0.bind(1, newName) }).get() != nil {
                throw HealthStoreError.personExists(newName)
            }
            let update = try connection.cached("UPDATE person SET name = ? WHERE id = ?").get()
            update.bind(1, newName)
            update.bind(2, id)
            try update.run().get()
        }
    }
}
