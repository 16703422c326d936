/// Invalid model input: an unknown name or a value outside what the model allows.
public enum HealthModelError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownType(String)
    case notAQuantityType(String)
    case invalidValue(field: String, value: String, reason: String)

    public var description: String {
        switch self {
        case .unknownType(let name):
            return "unknown type '\(name)' (known: \(SampleType.all.map(\.identifier).joined(separator: ", ")))"
        case .notAQuantityType(let name):
            return "'\(name)' is not a quantity type"
        case .invalidValue(let field, let value, let reason):
            return "\(field) '\(value)' \(reason)"
        }
    }
}
