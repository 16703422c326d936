import CommandKit

struct Root: Command {
    static let configuration = CommandConfiguration(name: "bandsim", abstract: "(under construction)")
}

CommandRunner.main(Root.self)
