import CommandKit

struct Root: Command {
    static let configuration = CommandConfiguration(name: "band", abstract: "(under construction)")
}

CommandRunner.main(Root.self)
