/// Process exit codes, following BSD `sysexits.h` where one applies.
///
/// | code | meaning |
/// |---|---|
/// | 0 | success |
/// | 1 | failure (I/O, link lost, refused, anything not below) |
/// | 64 | usage error (`EX_USAGE`): unknown option, missing or malformed argument |
/// | 65 | bad data (`EX_DATAERR`): the input file or stream is malformed |
public struct ExitCode: RawRepresentable, Hashable, Sendable, Error {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    public static let success = ExitCode(0)
    public static let failure = ExitCode(1)
    public static let usage = ExitCode(64)
    public static let dataError = ExitCode(65)
}

/// An error that knows which exit code it deserves and how to say itself to a person.
public protocol CommandFailure: Error, CustomStringConvertible {
    var exitCode: ExitCode { get }
}

/// The command line was wrong (exit 64).
public struct UsageError: CommandFailure {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var exitCode: ExitCode { .usage }
    public var description: String { message }
}

/// The input data was wrong (exit 65). The message names where: file, line or record, byte offset.
public struct DataError: CommandFailure {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var exitCode: ExitCode { .dataError }
    public var description: String { message }
}

/// Anything else that stopped the command (exit 1).
public struct RuntimeFailure: CommandFailure {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var exitCode: ExitCode { .failure }
    public var description: String { message }
}
