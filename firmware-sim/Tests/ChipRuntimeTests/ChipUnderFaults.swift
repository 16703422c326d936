import BandFirmware
import BandFirmwareCore
import BandLink
import ChipRuntime
import UARTFraming

/// The chip's band on the scripted board as the link and fault tests drive it: booted, the host's
/// fault rates (link 0x13) and configuration (0x10, seed 7, zone 0, ChipBandTests' start) sent, a
/// reader connected (0x02, before or after the configuration); every frame it sends kept with its
/// channel. And the Linux band the same seed makes, with the same faults, over a socket pair.
struct ChipUnderFaults {
    static let seed: UInt64 = 7
    var firmware = FirmwareRuntime(board: ScriptedBoard(), application: ChipBand())

    /// `bandFaults`: a link 0x13 body sent before the configuration; `connectFirst`: the reader's
    /// 0x02 comes before the configuration.
    init(bandFaults: [UInt8]? = nil, connectFirst: Bool = false) {
        firmware.start()
        let faults = bandFaults.map { encodeFrame(.link, [0x13] + $0) } ?? []
        let configure = faults + encodeFrame(.link, ChipBandTests.configure(start: ChipBandTests.start, seed: Self.seed, zone: 0))
        firmware.board.inbound = connectFirst ? encodeFrame(.link, [0x02]) + configure : configure + encodeFrame(.link, [0x02])
        firmware.poll()
        _ = frames()
    }

    /// Everything the firmware sent since the last call.
    mutating func frames() -> [Frame] { ChipBandFlashTests.frames(&firmware) }

    mutating func deliver(_ channel: UARTChannel, _ payload: [UInt8]) -> [Frame] {
        firmware.board.inbound = encodeFrame(channel, payload)
        firmware.poll()
        return frames()
    }

    /// The ATT PDUs answering `pdu`.
    mutating func send(_ pdu: [UInt8]) -> [[UInt8]] { Self.att(deliver(.att, pdu)) }

    /// `seconds` band seconds, one poll each: the frames sent meanwhile.
    mutating func advance(seconds: Int) -> [Frame] {
        for _ in 0..<seconds {
            firmware.board.now += 1_000
            firmware.poll()
        }
        return frames()
    }

    static func att(_ frames: [Frame]) -> [[UInt8]] { frames.filter { $0.channel == UARTChannel.att.rawValue }.map(\.payload) }
    static func linkDropped(_ frames: [Frame]) -> [[UInt8]] {
        frames.filter { $0.channel == UARTChannel.link.rawValue && $0.payload.first == 0x89 }.map(\.payload)
    }

    /// The Linux band the chip must match (as ChipBandServiceTests builds it), with `faults`.
    static func linuxBand(faults: [FaultSpec]) throws -> (SimulatedBand, SeqPacketLink) {
        var configuration = BandConfiguration(start: ChipBandTests.start)
        configuration.seed = seed
        configuration.historyCapacity = ChipBand.historyCapacity
        configuration.deterministicSecrets = true
        configuration.deviceName = ChipBand.deviceName
        configuration.faults = faults
        let band = try SimulatedBand(configuration: configuration)
        let (bandSide, readerSide) = try SeqPacketLink.pair()
        band.connect(bandSide)
        band.advance(by: .zero)   // the chip ticks its first second as the configuration arrives
        return (band, readerSide)
    }

    static func drain(_ reader: SeqPacketLink) throws -> [[UInt8]] {
        var pdus: [[UInt8]] = []
        while let pdu = try reader.receive(timeout: .zero) { pdus.append(pdu) }
        return pdus
    }
}
