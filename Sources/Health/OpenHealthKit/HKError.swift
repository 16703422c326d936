import Foundation

/// HealthKit's error domain.
public let HKErrorDomain = "com.apple.healthkit"

/// A HealthKit error (`HKError`): a code from Apple's list and a sentence saying what failed.
public struct HKError: Error, Hashable, CustomNSError, LocalizedError, CustomStringConvertible, Sendable {
    /// Apple's codes, with Apple's raw values.
    public enum Code: Int, Sendable {
        case errorHealthDataUnavailable = 1
        case errorHealthDataRestricted = 2
        case errorInvalidArgument = 3
        case errorAuthorizationDenied = 4
        case errorAuthorizationNotDetermined = 5
        case errorDatabaseInaccessible = 6
        case errorUserCanceled = 7
        case errorAnotherWorkoutSessionStarted = 8
        case errorUserExitedWorkoutSession = 9
        case errorRequiredAuthorizationDenied = 10
        case errorNoData = 11
        case errorWorkoutActivityNotAllowed = 12
        case errorDataSizeExceeded = 13
        case errorBackgroundWorkoutSessionNotAllowed = 14
        case errorNotPermissibleForGuestUserMode = 15
    }

    public let code: Code
    /// What failed, in words (the store's own message where the store refused).
    public let reason: String

    public init(_ code: Code, _ reason: String = "") {
        self.code = code
        self.reason = reason.isEmpty ? "\(code)" : reason
    }

    public static var errorDomain: String { HKErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: reason] }
    public var errorDescription: String? { reason }
    public var description: String { "HKError \(code.rawValue) (\(code)): \(reason)" }

    public static let errorInvalidArgument = Code.errorInvalidArgument
    public static let errorAuthorizationDenied = Code.errorAuthorizationDenied
    public static let errorAuthorizationNotDetermined = Code.errorAuthorizationNotDetermined
    public static let errorNoData = Code.errorNoData
    public static let errorDatabaseInaccessible = Code.errorDatabaseInaccessible
    public static let errorHealthDataUnavailable = Code.errorHealthDataUnavailable
}

/// `catch HKError.errorNoData` as in HealthKit's Swift overlay.
public func ~= (code: HKError.Code, error: any Error) -> Bool {
    (error as? HKError)?.code == code
}
