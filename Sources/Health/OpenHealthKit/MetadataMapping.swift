import Foundation
internal import HealthModel

/// HealthKit metadata ↔ the store's sample fields: the sync identifier and version, the time
/// zone and the user-entered flag have columns of their own; every other key is kept as text
/// (numbers and booleans in their Swift spelling, dates as seconds since 1970) and reads back as
/// a `String`.
struct MetadataMapping {
    var syncIdentifier: String?
    var syncVersion: Int64 = 0
    var timeZone: TimeZone?
    var userEntered = false
    var text: [String: String] = [:]

    /// Splits `metadata`; throws ``HKError/Code/errorInvalidArgument`` for a sync identifier
    /// without an integer version (HealthKit requires the pair), or an unknown time zone.
    init(_ metadata: [String: Any]?) throws(HKError) {
        guard let metadata else { return }
        for (key, value) in metadata {
            switch key {
            case HKMetadataKeySyncIdentifier:
                guard let identifier = value as? String else { throw HKError(.errorInvalidArgument, "\(key) must be a String") }
                syncIdentifier = identifier
            case HKMetadataKeySyncVersion:
                guard let version = Self.integer(value) else { throw HKError(.errorInvalidArgument, "\(key) must be an integer") }
                syncVersion = version
            case HKMetadataKeyTimeZone:
                guard let name = value as? String, let zone = TimeZone(identifier: name) else {
                    throw HKError(.errorInvalidArgument, "\(key) must name a time zone (got \(value))")
                }
                timeZone = zone
            case HKMetadataKeyWasUserEntered:
                userEntered = (value as? Bool) ?? (Self.integer(value).map { $0 != 0 } ?? false)
            default:
                text[key] = Self.text(value)
            }
        }
        if syncIdentifier != nil, metadata[HKMetadataKeySyncVersion] == nil {
            throw HKError(.errorInvalidArgument, "\(HKMetadataKeySyncIdentifier) needs \(HKMetadataKeySyncVersion)")
        }
    }

    static func integer(_ value: Any) -> Int64? {
        switch value {
        case let number as Int: Int64(number)
        case let number as Int64: number
        case let number as Int32: Int64(number)
        case let number as UInt: Int64(exactly: number)
        case let number as NSNumber: number.int64Value
        default: nil
        }
    }

    static func text(_ value: Any) -> String {
        switch value {
        case let string as String: string
        case let date as Date: String(date.timeIntervalSince1970)
        case let quantity as HKQuantity: quantity.description
        default: String(describing: value)
        }
    }

    /// The metadata of a stored sample, as HealthKit shows it (nil when there is none).
    static func dictionary(syncIdentifier: String?, syncVersion: Int64, timeZone: TimeZone?, userEntered: Bool,
                           text: [String: String]) -> [String: Any]? {
        var result: [String: Any] = text
        if let syncIdentifier {
            result[HKMetadataKeySyncIdentifier] = syncIdentifier
            result[HKMetadataKeySyncVersion] = Int(syncVersion)
        }
        if let timeZone { result[HKMetadataKeyTimeZone] = timeZone.identifier }
        if userEntered { result[HKMetadataKeyWasUserEntered] = true }
        return result.isEmpty ? nil : result
    }
}
