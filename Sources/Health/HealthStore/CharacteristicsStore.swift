import FoundationEssentials
import HealthModel

/// Characteristics: read by the owner and by apps with a read grant per characteristic; written
/// only by the owner (HealthKit apps can never write them).
extension HealthStore {
    public func characteristics(as app: AppIdentity) throws -> Characteristics {
        try read { connection in
            let appID = app.isOwner ? nil : try existingAppID(app.id, connection)
            func readable(_ type: CharacteristicType) throws(HealthStoreError) -> Bool {
                if app.isOwner { return true }
                return try authorization(appID: appID, type: type.rawValue, connection).read == .granted
            }
            let select = try connection.cached("SELECT key, value FROM characteristic WHERE person_id = ?").get()
            defer { select.reset() }
            select.bind(1, personID)
            var result = Characteristics()
            while try select.step().get() {
                guard let key = select.text(0).flatMap(CharacteristicType.init(rawValue:)), let value = select.text(1),
                      try readable(key) else { continue }
                switch key {
                case .dateOfBirth: result.dateOfBirth = Self.parseBirthDate(value)
                case .biologicalSex: result.biologicalSex = BiologicalSex(rawValue: value)
                case .bloodType: result.bloodType = BloodType(rawValue: value)
                }
            }
            return result
        }
    }

    /// Sets (or with nil, clears) one characteristic. Owner-only: this is `health profile --set`.
    public func setCharacteristic(_ type: CharacteristicType, _ value: String?) throws {
        if let value {
            switch type {
            case .dateOfBirth:
                guard Self.parseBirthDate(value) != nil else {
                    throw HealthStoreError.model(.invalidValue(field: type.rawValue, value: value, reason: "is not a date YYYY-MM-DD"))
                }
            case .biologicalSex:
                guard BiologicalSex.known.contains(BiologicalSex(rawValue: value)) else {
                    throw HealthStoreError.model(.invalidValue(field: type.rawValue, value: value,
                                                               reason: "is not one of \(BiologicalSex.known.map(\.rawValue).joined(separator: ", "))"))
                }
            case .bloodType:
                guard BloodType.known.contains(BloodType(rawValue: value)) else {
                    throw HealthStoreError.model(.invalidValue(field: type.rawValue, value: value,
                                                               reason: "is not one of \(BloodType.known.map(\.rawValue).joined(separator: ", "))"))
                }
            }
        }
        try write(as: .owner) { transaction in
            if let value {
                try transaction.setCharacteristic(type, value)
            } else {
                let delete = try transaction.connection.cached("DELETE FROM characteristic WHERE person_id = ? AND key = ?").get()
                delete.bind(1, self.personID)
                delete.bind(2, type.rawValue)
                try delete.run().get()
            }
        }
    }

    static func parseBirthDate(_ text: String) -> DateComponents? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        let components = DateComponents(year: year, month: month, day: day)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: components),
              calendar.dateComponents([.year, .month, .day], from: date) == components else { return nil }
        return components
    }
}
