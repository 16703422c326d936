import CommandKit

struct Root: Command {
    static let configuration = CommandConfiguration(
        name: "bandsim", abstract: "Simulated BLE smart band: firmware, trace decoding and replay.",
        subcommands: [
            DecodeCommand.self,
            GenerateTraceCommand.self,
            ReplayCommand.self,
            ServeCommand.self,
        ])
}

CommandRunner.main(Root.self)
