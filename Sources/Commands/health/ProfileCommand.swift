import CommandKit
import Foundation
import HealthModel
import HealthStore

/// `health profile [--set KEY=VALUE]`: characteristics (date of birth, biological sex, blood type).
struct ProfileCommand: Command {
    static let configuration = CommandConfiguration(
        name: "profile", abstract: "Show or set characteristics: date-of-birth, biological-sex, blood-type.",
        discussion: "Example: health profile --set date-of-birth=1990-05-17 --set blood-type=A+ ; an empty value clears.",
        options: [.option("set", value: "KEY=VALUE", repeats: true, help: "Set a characteristic (repeatable)."), storeOption, personOption])

    var changes: [(CharacteristicType, String?)]
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        var changes: [(CharacteristicType, String?)] = []
        for assignment in arguments.values("set") {
            guard let equals = assignment.firstIndex(of: "=") else { throw arguments.usageError("--set '\(assignment)' is not KEY=VALUE") }
            let key = String(assignment[..<equals])
            let value = String(assignment[assignment.index(after: equals)...])
            guard let type = CharacteristicType(rawValue: key) else {
                throw arguments.usageError("unknown characteristic '\(key)' (known: \(CharacteristicType.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            changes.append((type, value.isEmpty ? nil : value))
        }
        self.changes = changes
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: changes.isEmpty)
        for (type, value) in changes {
            do { try store.setCharacteristic(type, value) } catch HealthStoreError.model(let error) {
                throw UsageError("health profile: \(error)")
            }
        }
        let profile = try store.characteristics(as: .owner)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        if let birth = profile.dateOfBirth, let year = birth.year, let month = birth.month, let day = birth.day {
            let age = profile.age(on: Date(), calendar: calendar).map { " (age \($0))" } ?? ""
            StandardOutput.shared.line("date-of-birth: " + String(format: "%04d-%02d-%02d", year, month, day) + age)
        } else {
            StandardOutput.shared.line("date-of-birth: not set")
        }
        StandardOutput.shared.line("biological-sex: \(profile.biologicalSex?.rawValue ?? "not set")")
        StandardOutput.shared.line("blood-type: \(profile.bloodType?.rawValue ?? "not set")")
        return .success
    }
}
