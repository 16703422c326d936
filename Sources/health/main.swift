import CommandKit

struct Root: Command {
    static let configuration = CommandConfiguration(name: "health", abstract: "(under construction)")
}

CommandRunner.main(Root.self)
