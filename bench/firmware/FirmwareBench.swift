// The simulated band's costs, built and run by bench/firmware/run.sh (swiftc -O).
//
// 1. A simulated second with no reader (sensor models, minute records, counters), against a
//    baseline of one xoshiro256** draw plus one exp() per second.
// 2. A 7-day history transfer (10 079 records: the minute in progress at the start is not closed yet) to a reader on the other end of a socketpair at
//    ATT_MTU 23, 247 and 517, against a baseline that pushes the same datagrams through the same
//    socketpair without the band. Heap allocations are counted over the whole transfer.
// 3. GATT requests: a reader's discovery and reads of the whole table (service, characteristic
//    and descriptor discovery, Find By Type Value, every readable value, a long read, refused
//    reads) answered by the band's GATT server at ATT_MTU 23, against a baseline of the same
//    number of request/response round trips through the same socketpair without the band.
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

// MARK: 3. GATT requests

/// One client's walk over the band's table (BandAttributeTable handles, docs/protocol.md).
let gattRequests: [[UInt8]] = [
    "10 0100 ffff 0028", "10 1300 ffff 0028", "10 2500 ffff 0028", "10 2b00 ffff 0028", "10 3800 ffff 0028",
    "08 0100 ffff 0328", "08 0800 ffff 0328", "08 1500 ffff 0328", "08 1d00 ffff 0328", "08 2700 ffff 0328",
    "08 2d00 ffff 0328", "08 3600 ffff 0328", "08 3800 ffff 0328",
    "04 0100 ffff", "04 0600 ffff", "04 0b00 ffff", "04 1000 ffff", "04 1500 ffff", "04 1a00 ffff",
    "04 1f00 ffff", "04 2400 ffff", "04 2900 ffff", "04 2e00 ffff", "04 3300 ffff", "04 3800 ffff",
    "06 0100 ffff 0028 0d18", "06 0100 ffff 0028 9918",
    "0a 0300", "0a 0500", "0a 0c00", "0a 0e00", "0a 1000", "0a 1200", "0a 1500", "0a 1c00", "0a 2400",
    "0a 2700", "0a 2a00", "0c 0e00 0500", "0a 2d00", "0a 1900", "0a 0000", "08 0100 ffff 192a",
].map(hex)

@MainActor
func gattRequestCost(rounds: Int) throws -> (band: Double, baseline: Double, requests: Int, allocationsPerRequest: Double) {
    let band = try SimulatedBand(configuration: configuration())
    let (bandSide, reader) = try SeqPacketLink.pair()
    band.connect(bandSide)
    var responseBytes = 0, responses = 0
    let allocations = allocationCount()
    var t0 = threadCPUNanoseconds()
    for _ in 0..<rounds {
        for request in gattRequests {
            try request.withUnsafeBytes { try reader.send($0) }
            band.pump()
            if let n = try reader.receive(into: receiveBuffer, timeout: .zero) { responseBytes += n; responses += 1 }
        }
    }
    let elapsed = threadCPUNanoseconds() - t0
    let requests = rounds * gattRequests.count
    let allocationsPerRequest = Double(allocationCount() - allocations) / Double(requests)
    precondition(responses == requests, "every request answered: \(responses) of \(requests)")

    // Baseline: the same requests and same-sized answers through a socketpair, no band.
    let (a, b) = try SeqPacketLink.pair()
    let answer = UnsafeMutableRawBufferPointer.allocate(byteCount: 23, alignment: 8)
    answer.initializeMemory(as: UInt8.self, repeating: 0x09)
    let answerSize = responseBytes / requests
    t0 = threadCPUNanoseconds()
    for _ in 0..<rounds {
        for request in gattRequests {
            try request.withUnsafeBytes { try a.send($0) }
            _ = try b.receive(into: receiveBuffer, timeout: .zero)
            try b.send(UnsafeRawBufferPointer(rebasing: answer[0..<answerSize]))
            _ = try a.receive(into: receiveBuffer, timeout: .zero)
        }
    }
    let baseline = threadCPUNanoseconds() - t0
    return (elapsed, baseline, requests, allocationsPerRequest)
}

let gatt = try gattRequestCost(rounds: 2_000)
print("GATT requests at ATT_MTU 23: \(gatt.requests) requests, \(fmt(gatt.band / Double(gatt.requests))) ns CPU each; baseline socketpair round trip \(fmt(gatt.baseline / Double(gatt.requests))) ns (\(fmt(gatt.band / gatt.baseline, 2))×); \(fmt(gatt.allocationsPerRequest, 3)) allocations/request")

func fmt(_ value: Double, _ digits: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return String(rounded)
}
