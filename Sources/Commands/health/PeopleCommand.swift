import CommandKit
import Foundation
import HealthModel
import HealthStore
import JSONOutput

/// `health people list|add|rename`: the people whose data the store holds (docs/architecture.md, "People").
struct PeopleCommand: Command {
    static let configuration = CommandConfiguration(
        name: "people", abstract: "The people in the store: list, add, rename (choose one with --person NAME).",
        discussion: """
            Every store has a default person (id 1, named 'default' until renamed): without --person, every command
            reads and writes theirs. Names: 1 to 64 characters, no control characters, no space at either end.
            Exit 64 for a name that is invalid, unknown (rename) or taken.
            """,
        subcommands: [PeopleListCommand.self, PeopleAddCommand.self, PeopleRenameCommand.self])
}

/// `health people list [--json]`.
struct PeopleListCommand: Command {
    static let configuration = CommandConfiguration(
        name: "list", abstract: "List the people, the default person first.",
        discussion: """
            One line per person: id, name, created (UTC), and 'default' for the default person.
            JSON: [{"id","name","created","default"}].
            """,
        options: [.flag("json", help: "Print JSON."), storeOption])

    var json: Bool
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        json = arguments.flag("json")
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: true)
        let people = try store.people()
        let utc = TimeZone(identifier: "UTC")!
        if json {
            StandardOutput.shared.line(JSON.text { json in
                json.beginArray()
                for person in people {
                    json.beginObject()
                    json.key("id"); json.value(person.id)
                    json.key("name"); json.value(person.name)
                    json.key("created"); json.value(TimeParsing.format(person.created, in: utc))
                    json.key("default"); json.value(person.isDefault)
                    json.endObject()
                }
                json.endArray()
            })
        } else {
            for person in people {
                StandardOutput.shared.line("\(person.id)\t\(person.name.terminalEscaped)\t\(TimeParsing.format(person.created, in: utc))"
                                           + (person.isDefault ? "\tdefault" : ""))
            }
        }
        return .success
    }
}

/// `health people add NAME`.
struct PeopleAddCommand: Command {
    static let configuration = CommandConfiguration(
        name: "add", abstract: "Add a person; bands paired with 'band pair --person NAME' write as them.",
        options: [.argument("NAME", help: "The new person's name."), storeOption])

    var name: String
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        name = arguments.required("NAME")
        if let problem = Person.problem(withName: name) {
            throw arguments.usageError("the name '\(name.terminalEscaped)' \(problem)")
        }
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath)
        let person = try peopleChange { try store.addPerson(named: name) }
        StandardOutput.shared.line("added person \(person.id) \(person.name.terminalEscaped)")
        return .success
    }
}

/// `health people rename NAME NEW-NAME`.
struct PeopleRenameCommand: Command {
    static let configuration = CommandConfiguration(
        name: "rename", abstract: "Rename a person (their data, grants and paired bands stay theirs).",
        options: [.argument("NAME", help: "The person's current name."), .argument("NEW-NAME", help: "The new name."), storeOption])

    var name: String
    var newName: String
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        name = arguments.required("NAME")
        newName = arguments.required("NEW-NAME")
        if let problem = Person.problem(withName: newName) {
            throw arguments.usageError("the name '\(newName.terminalEscaped)' \(problem)")
        }
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath)
        try peopleChange { try store.renamePerson(name, to: newName) }
        StandardOutput.shared.line("renamed \(name.terminalEscaped) to \(newName.terminalEscaped)")
        return .success
    }
}

/// Runs a change to the people, turning a name that is unknown, taken or invalid into a usage
/// error (exit 64) with the name escaped for the terminal.
private func peopleChange<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch HealthStoreError.unknownPerson(let name) {
        throw UsageError("health people: no person named '\(name.terminalEscaped)' (see 'health people list')")
    } catch HealthStoreError.personExists(let name) {
        throw UsageError("health people: a person named '\(name.terminalEscaped)' already exists")
    } catch HealthStoreError.invalidPersonName(let name, let problem) {
        throw UsageError("health people: the name '\(name.terminalEscaped)' \(problem)")
    }
}
