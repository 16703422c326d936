import CommandKit

/// `bandradio`: BandKit's Bluetooth link probe. Exercises the BandBlueZ layer on a real or
/// virtual radio (scan, advertise, ATT over L2CAP CID 4, pairing and stored keys, power
/// cycling) without the band protocol on top: the radio CI stage and docs/real-hardware.md
/// use it to tell "the radio path is broken" apart from "the band protocol is".
struct Root: Command {
    static let configuration = CommandConfiguration(
        name: "bandradio",
        abstract: "Probe the Bluetooth LE path through BlueZ (scan, advertise, ATT over L2CAP, pairing).",
        subcommands: [InfoCommand.self, ScanCommand.self, ServeCommand.self, ConnectCommand.self, PowerCommand.self,
                      DisconnectCommand.self])
}

CommandRunner.main(Root.self)
