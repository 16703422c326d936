import FoundationEssentials

/// HealthKit `HKBiologicalSex`; open so values written by newer versions survive.
public struct BiologicalSex: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static let female = BiologicalSex(rawValue: "female")
    public static let male = BiologicalSex(rawValue: "male")
    public static let other = BiologicalSex(rawValue: "other")
    public static let known: [BiologicalSex] = [.female, .male, .other]
}

/// HealthKit `HKBloodType`.
public struct BloodType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static let known: [BloodType] = ["A+", "A-", "B+", "B-", "AB+", "AB-", "O+", "O-"].map(BloodType.init)
}

/// Facts about the user that are not samples: read by apps with a read grant, written only by the owner.
public struct Characteristics: Hashable, Sendable {
    /// Calendar date of birth (year, month, day), not an instant: it does not move with time zones.
    public var dateOfBirth: DateComponents?
    public var biologicalSex: BiologicalSex?
    public var bloodType: BloodType?

    public init(dateOfBirth: DateComponents? = nil, biologicalSex: BiologicalSex? = nil, bloodType: BloodType? = nil) {
        self.dateOfBirth = dateOfBirth
        self.biologicalSex = biologicalSex
        self.bloodType = bloodType
    }

    /// Age in whole years on `date` in `calendar`, or nil without a date of birth.
    public func age(on date: Date, calendar: Calendar) -> Int? {
        guard let dateOfBirth, let birth = calendar.date(from: dateOfBirth) else { return nil }
        return calendar.dateComponents([.year], from: birth, to: date).year
    }
}
