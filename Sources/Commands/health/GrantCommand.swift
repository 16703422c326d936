import CommandKit
import HealthModel
import HealthStore

/// `health grant|revoke APP TYPE --read|--write`: the user's authorization decisions.
struct GrantCommand: Command {
    static let configuration = CommandConfiguration(
        name: "grant", abstract: "Allow an app to read and/or write a type (or read a characteristic).",
        discussion: "A read denial is invisible to the app: it sees only what it wrote itself.",
        options: GrantOptions.specs)
    var options: GrantOptions
    init(arguments: ParsedArguments) throws(UsageError) { options = try GrantOptions(arguments) }
    func run() throws -> ExitCode { try options.apply(granted: true) }
}

struct RevokeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "revoke", abstract: "Deny an app reading and/or writing a type; sticky against its later requests.",
        options: GrantOptions.specs)
    var options: GrantOptions
    init(arguments: ParsedArguments) throws(UsageError) { options = try GrantOptions(arguments) }
    func run() throws -> ExitCode { try options.apply(granted: false) }
}

struct GrantOptions {
    static let specs: [OptionSpec] = [
        .argument("APP", help: "App identifier (e.g. bandkit.band)."),
        .argument("TYPE", help: "Sample type, workout, or characteristic (date-of-birth, biological-sex, blood-type)."),
        .flag("read", help: "The read permission."), .flag("write", help: "The write permission."), storeOption, personOption,
    ]

    var app: String
    var type: String
    var accesses: [Access]
    var storePath: StoreChoice

    init(_ arguments: ParsedArguments) throws(UsageError) {
        app = arguments.required("APP")
        guard app != AppIdentity.owner.id else { throw arguments.usageError("'\(app)' is the owner and needs no grants") }
        let name = arguments.required("TYPE")
        if let characteristic = CharacteristicType(rawValue: name) {
            type = characteristic.rawValue
            if arguments.flag("write") { throw arguments.usageError("characteristics can only be granted for reading") }
        } else {
            type = try arguments.sampleType(name).identifier
        }
        accesses = [(Access.read, arguments.flag("read")), (.write, arguments.flag("write"))].filter(\.1).map(\.0)
        if accesses.isEmpty { throw arguments.usageError("say which permission: --read, --write or both") }
        storePath = arguments.storePath
    }

    func apply(granted: Bool) throws -> ExitCode {
        let store = try openStore(storePath)
        for access in accesses { try store.setAuthorization(app: app, type: type, access: access, granted: granted) }
        let state = try store.authorization(app: app, type: type)
        // Grants are per person: a person other than the default is named (the default's line is as it always was).
        let whose = store.person.isDefault ? "" : " for \(store.person.name.terminalEscaped)"
        StandardOutput.shared.line("\(app.terminalEscaped) \(type)\(whose): read \(state.read.rawValue), write \(state.write.rawValue)")
        return .success
    }
}
