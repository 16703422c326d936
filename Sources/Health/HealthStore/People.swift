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

    /// Why `name` cannot name a person, or nil when it can: 1…64 characters, no control,
    /// invisible or bidirectional-control character (a name reaches terminals, JSON and HTML,
    /// and `ana` followed by a zero-width space would look like `ana`), no space at either end
    /// (two names differing only there would look the same).
    ///
    /// Invisible means Unicode's format characters (zero-width space U+200B, the marks
    /// U+200E/U+200F and U+061C, the embeddings, overrides and isolates U+202A–U+202E and
    /// U+2066–U+2069, the BOM U+FEFF, the soft hyphen …) and the Hangul fillers; the zero-width
    /// joiner and non-joiner (U+200D, U+200C) stay, since emoji sequences and Persian names
    /// need them. Check the ``normalized(_:)`` name: that is the one stored.
    public static func problem(withName name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.count > maximumNameLength { return "is longer than \(maximumNameLength) characters" }
        for scalar in name.unicodeScalars {
            let category = scalar.properties.generalCategory
            let code = { "U+" + String(scalar.value, radix: 16, uppercase: true) }
            if category == .control || category == .lineSeparator || category == .paragraphSeparator {
                return "contains the control character \(code())"
            }
            if (category == .format && scalar.value != 0x200C && scalar.value != 0x200D)
                || [0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0].contains(scalar.value) {
                return "contains the invisible character \(code())"
            }
        }
        if name.first?.isWhitespace == true || name.last?.isWhitespace == true { return "begins or ends with a space" }
        return nil
    }

    /// `name` in Unicode Normalization Form C, the form a name is stored and looked up in: a
    /// precomposed `josé` and `jose` + U+0301 name one person, as they look the same.
    public static func normalized(_ name: String) -> String {
        // The standard library's NFC (no Foundation in the store); the same tables Swift's own
        // String comparison uses.
        String(decoding: Array(name._nfcCodeUnits), as: UTF8.self)
    }
}

extension HealthStore {
    /// The person `name` names (the default person when nil), read through `connection`.
    /// The name is compared in NFC, and canonically against names stored before names were
    /// normalised (a row may still hold `jose` + U+0301).
    static func resolvePerson(_ name: String?, _ connection: Connection) throws(HealthStoreError) -> Person {
        guard let name else {
            let select = try connection.cached("SELECT id, name, created_us FROM person WHERE id = ?").get()
            defer { select.reset() }
            select.bind(1, Person.defaultID)
            guard try select.step().get() else { throw .unknownPerson(Person.defaultName) }
            return Person(id: select.int64(0), name: select.text(1) ?? "", created: Date(microsecondsSince1970: select.int64(2)))
        }
        guard let person = try person(named: name, connection) else { throw .unknownPerson(name) }
        return person
    }

    /// The person whose name is canonically equivalent to `name`, or nil: the stored NFC
    /// spelling by index first, then every row compared as Swift compares strings (canonical
    /// equivalence), for a name stored in another form. A store holds a handful of people.
    static func person(named name: String, _ connection: Connection) throws(HealthStoreError) -> Person? {
        let select = try connection.cached("SELECT id, name, created_us FROM person WHERE name = ?").get()
        select.bind(1, Person.normalized(name))
        let exact = try select.step().get()
            ? Person(id: select.int64(0), name: select.text(1) ?? "", created: Date(microsecondsSince1970: select.int64(2))) : nil
        select.reset()
        if let exact { return exact }
        let all = try connection.cached("SELECT id, name, created_us FROM person ORDER BY id").get()
        defer { all.reset() }
        while try all.step().get() {
            let stored = all.text(1) ?? ""
            if stored == name { return Person(id: all.int64(0), name: stored, created: Date(microsecondsSince1970: all.int64(2))) }
        }
        return nil
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
    public func addPerson(named given: String, now: Date = Date()) throws -> Person {
        let name = Person.normalized(given)
        if let problem = Person.problem(withName: name) { throw HealthStoreError.invalidPersonName(given, problem) }
        return try write(as: .owner) { transaction in
            let connection = transaction.connection
            // The list of people is the store's: checked and changed under the store-wide lock.
            try connection.engine.widenToStore().get()
            if let existing = try Self.person(named: name, connection) { throw HealthStoreError.personExists(existing.name) }
            let created = now.microsecondsSince1970
            let id = try connection.scalar("INSERT INTO person (name, created_us) VALUES (?, ?) RETURNING id") { insert in
                insert.bind(1, name)
                insert.bind(2, created)
            }.get() ?? 0
            return Person(id: id, name: name, created: Date(microsecondsSince1970: created))
        }
    }

    /// Renames a person (`health people rename`); their data stays theirs (rows hold the id).
    /// Renaming to the same name in another normal form stores the NFC spelling (how an old
    /// store's decomposed name is brought into the form every new name has).
    public func renamePerson(_ name: String, to given: String) throws {
        let newName = Person.normalized(given)
        if let problem = Person.problem(withName: newName) { throw HealthStoreError.invalidPersonName(given, problem) }
        try write(as: .owner) { transaction in
            let connection = transaction.connection
            try connection.engine.widenToStore().get()
            guard let person = try Self.person(named: name, connection) else { throw HealthStoreError.unknownPerson(name) }
            if person.name.utf8.elementsEqual(newName.utf8) { return }
            if let existing = try Self.person(named: newName, connection), existing.id != person.id {
                throw HealthStoreError.personExists(existing.name)
            }
            let update = try connection.cached("UPDATE person SET name = ? WHERE id = ?").get()
            update.bind(1, newName)
            update.bind(2, person.id)
            try update.run().get()
        }
    }
}
