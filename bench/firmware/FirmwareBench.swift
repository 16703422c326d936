// The simulated band's costs, built and run by bench/firmware/run.sh (swiftc -O).
//
// 1. A simulated second with no reader (sensor models, minute records, counters), against a
//    baseline of one xoshiro256** draw plus one exp() per second.
// 2. A 7-day history transfer (10 079 records: the minute in progress at the start is not closed yet) to a reader on the other end of a socketpair at
//    ATT_MTU 23, 247 and 517, against a baseline that pushes the same datagrams through the same
//    socketpair without the band. Heap allocations are counted over the whole transfer.
import BandFirmware
import BandLink
import BandProtocol
import BandWire
import Glibc

@_silgen_name("bench_allocation_count")
func allocationCount() -> UInt

func threadCPUNanoseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
}

func hex(_ text: String) -> [UInt8] { Hex.decode(text)! }

let start = BandInstant(seconds: 1_796_025_600)
func configuration(historyDays: Int = 0) -> BandConfiguration {
    var configuration = BandConfiguration(start: start)
    configuration.seed = 3
    configuration.deterministicSecrets = true
    configuration.historyDays = historyDays
    return configuration
}

// MARK: 1. Simulated seconds

let day = 86_400
var baselineRandom = Xoshiro256StarStar(seed: 1)
var sink = 0.0
var t0 = threadCPUNanoseconds()
for _ in 0..<(day * 7) { sink += exp(baselineRandom.unit()) }
let baselineSecond = (threadCPUNanoseconds() - t0) / Double(day * 7)

let band = try SimulatedBand(configuration: configuration())
var allocations = allocationCount()
t0 = threadCPUNanoseconds()
band.advance(by: .seconds(Int64(day) * 7))
let tickSecond = (threadCPUNanoseconds() - t0) / Double(day * 7)
let tickAllocations = Double(allocationCount() - allocations) / Double(day * 7)
precondition(band.flash.ring.count == 10_080 && sink != 0)
print("simulated second, no reader: \(fmt(tickSecond)) ns (baseline \(fmt(baselineSecond)) ns, \(fmt(tickSecond / baselineSecond))×), \(fmt(tickAllocations, 3)) allocations; 7 days in \(fmt(tickSecond * Double(day * 7) / 1e9, 2)) s of CPU")

// MARK: 2. History transfer

let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 600, alignment: 8)

/// Sends `request` from the reader, lets the band answer, returns the first PDU back.
@MainActor
func exchange(_ reader: SeqPacketLink, _ band: SimulatedBand, _ request: String) throws -> [UInt8] {
    try reader.send(hex(request))
    band.pump()
    let n = try reader.receive(into: receiveBuffer, timeout: .seconds(1))!
    return Array(receiveBuffer[0..<n])
}

@MainActor
func transfer(mtu: Int) throws -> (band: Double, baseline: Double, packets: Int, allocationsPerPacket: Double) {
    let band = try SimulatedBand(configuration: configuration(historyDays: 7))
    let (bandSide, reader) = try SeqPacketLink.pair()
    band.connect(bandSide)
    _ = try exchange(reader, band, "02 " + Hex.encode([UInt8(mtu & 0xFF), UInt8(mtu >> 8)]))
    reader.mtu = mtu
    _ = try exchange(reader, band, "12 3700 0200")
    _ = try exchange(reader, band, "12 3600 01 0100000000000000")
    _ = try reader.receive(into: receiveBuffer, timeout: .seconds(1))   // pairing response (indication)
    try reader.send(hex("1e")); band.pump()
    _ = try exchange(reader, band, "12 3100 0200")
    _ = try exchange(reader, band, "12 3400 0100")
    _ = try exchange(reader, band, "12 3000 01 00000000 0000")
    _ = try reader.receive(into: receiveBuffer, timeout: .seconds(1))   // fetch response
    let confirmation = hex("1e")
    var packets = 0
    let allocations = allocationCount()
    var t0 = threadCPUNanoseconds()
    try confirmation.withUnsafeBytes { try reader.send($0) }
    transferLoop: while true {
        band.pump()
        while let n = try reader.receive(into: receiveBuffer, timeout: .zero) {
            if receiveBuffer[0] == 0x1B { packets += 1 } else if receiveBuffer[0] == 0x1D, n > 3 { break transferLoop }
        }
    }
    let elapsed = threadCPUNanoseconds() - t0
    let records = band.flash.ring.count
    precondition(packets == (records + HistoryDataPacket.recordCapacity(mtu: mtu) - 1) / HistoryDataPacket.recordCapacity(mtu: mtu),
                 "ATT_MTU \(mtu): \(packets) packets")
    let allocationsPerPacket = Double(allocationCount() - allocations) / Double(packets)

    // Baseline: the same number of datagrams of the same size through a socketpair, no band.
    let (a, b) = try SeqPacketLink.pair(mtu: mtu)
    let size = 3 + 2 + HistoryDataPacket.recordCapacity(mtu: mtu) * MinuteRecord.size
    let datagram = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
    datagram.initializeMemory(as: UInt8.self, repeating: 0x1B)
    t0 = threadCPUNanoseconds()
    var sent = 0
    while sent < packets {
        for _ in 0..<8 where sent < packets { try a.send(UnsafeRawBufferPointer(datagram)); sent += 1 }
        while try b.receive(into: receiveBuffer, timeout: .zero) != nil {}
    }
    let baseline = threadCPUNanoseconds() - t0
    return (elapsed, baseline, packets, allocationsPerPacket)
}

for mtu in [23, 247, 517] {
    let result = try transfer(mtu: mtu)
    print("history transfer, 10 079 records at ATT_MTU \(mtu): \(result.packets) packets, \(fmt(result.band / 1e6, 1)) ms CPU (\(fmt(result.band / 10_079)) ns/record); baseline socketpair \(fmt(result.baseline / 1e6, 1)) ms (\(fmt(result.band / result.baseline))×); \(fmt(result.allocationsPerPacket, 3)) allocations/packet")
}

func fmt(_ value: Double, _ digits: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return String(rounded)
}
