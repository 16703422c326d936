import BandATT
import BandLink
import BandWire
import Foundation
import Synchronization

/// A standard heart-rate strap: Generic Access, Heart Rate, Device Information and Battery, no
/// band activity service, no pairing. A minimal ATT server on its own thread, serving a fixed
/// attribute table and notifying a Heart Rate Measurement (rate and one RR interval) every
/// `period` once its CCCD is enabled.
final class HeartRateStrap: @unchecked Sendable {
    struct Attribute {
        var handle: UInt16
        var type: UInt16
        var value: [UInt8]
    }

    static let beatsPerMinute: UInt8 = 64
    static let rrInterval: UInt16 = 960   // 1/1024 s ≈ 937.5 ms
    let link: SeqPacketLink
    private let server: SeqPacketLink
    private let period: Duration
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    let notificationsSent = Atomic<Int>(0)

    private static func declaration(_ properties: UInt8, _ valueHandle: UInt16, _ uuid: UInt16) -> [UInt8] {
        [properties, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8), UInt8(uuid & 0xFF), UInt8(uuid >> 8)]
    }

    private let table: [Attribute] = [
        Attribute(handle: 1, type: 0x2800, value: [0x00, 0x18]),
        Attribute(handle: 2, type: 0x2803, value: declaration(0x02, 3, 0x2A00)),
        Attribute(handle: 3, type: 0x2A00, value: Array("Test Strap".utf8)),
        Attribute(handle: 4, type: 0x2800, value: [0x0D, 0x18]),
        Attribute(handle: 5, type: 0x2803, value: declaration(0x10, 6, 0x2A37)),
        Attribute(handle: 6, type: 0x2A37, value: []),
        Attribute(handle: 7, type: 0x2902, value: [0, 0]),
        Attribute(handle: 8, type: 0x2800, value: [0x0A, 0x18]),
        Attribute(handle: 9, type: 0x2803, value: declaration(0x02, 10, 0x2A29)),
        Attribute(handle: 10, type: 0x2A29, value: Array("Strapworks".utf8)),
        Attribute(handle: 11, type: 0x2803, value: declaration(0x02, 12, 0x2A25)),
        Attribute(handle: 12, type: 0x2A25, value: Array("S-1".utf8)),
    ]
    private var notifying = false

    init(period: Duration = .milliseconds(5)) throws {
        (link, server) = try SeqPacketLink.pair()
        server.mtu = 517
        self.period = period
        Thread { [self] in
            serve()
            done.signal()
        }.start()
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
        done.wait()
        server.close()
    }

    private func groupEnd(after index: Int) -> UInt16 {
        table[(index + 1)...].first { $0.type == 0x2800 }.map { $0.handle - 1 } ?? 0xFFFF
    }

    private func serve() {
        var nextBeat = ContinuousClock.now
        while !stopped.load(ordering: .acquiring) {
            let pdu: [UInt8]?
            do { pdu = try server.receive(timeout: max(.zero, nextBeat - ContinuousClock.now)) } catch { return }
            if let pdu { respond(to: pdu) }
            if notifying, ContinuousClock.now >= nextBeat {
                let rr = Self.rrInterval
                try? server.send([0x1B, 6, 0, 0x10, Self.beatsPerMinute, UInt8(rr & 0xFF), UInt8(rr >> 8)])
                notificationsSent.add(1, ordering: .relaxed)
                nextBeat = ContinuousClock.now.advanced(by: period)
            } else if !notifying {
                nextBeat = ContinuousClock.now.advanced(by: period)
            }
        }
    }

    private func error(_ request: UInt8, _ handle: UInt16, _ code: UInt8) -> [UInt8] {
        [0x01, request, UInt8(handle & 0xFF), UInt8(handle >> 8), code]
    }

    private func respond(to pdu: [UInt8]) {
        func u16(_ i: Int) -> UInt16 { UInt16(pdu[i]) | UInt16(pdu[i + 1]) << 8 }
        func le(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        var reply: [UInt8]
        switch pdu.first {
        case 0x02:   // Exchange MTU
            reply = [0x03] + le(247)
        case 0x10:   // Read By Group Type: services
            let (start, end) = (u16(1), u16(3))
            reply = [0x11, 6]
            for (i, a) in table.enumerated() where a.type == 0x2800 && a.handle >= start && a.handle <= end {
                reply += le(a.handle) + le(groupEnd(after: i)) + a.value
            }
            if reply.count == 2 { reply = error(0x10, start, 0x0A) }
        case 0x08:   // Read By Type: characteristic declarations
            let (start, end) = (u16(1), u16(3))
            reply = [0x09, 7]
            for a in table where a.type == 0x2803 && a.handle >= start && a.handle <= end { reply += le(a.handle) + a.value }
            if reply.count == 2 { reply = error(0x08, start, 0x0A) }
        case 0x04:   // Find Information
            let (start, end) = (u16(1), u16(3))
            reply = [0x05, 1]
            for a in table where a.handle >= start && a.handle <= end { reply += le(a.handle) + le(a.type) }
            if reply.count == 2 { reply = error(0x04, start, 0x0A) }
        case 0x0A:   // Read
            let handle = u16(1)
            if let a = table.first(where: { $0.handle == handle }), a.type != 0x2A37 { reply = [0x0B] + a.value } else { reply = error(0x0A, handle, 0x02) }
        case 0x12:   // Write: only the Heart Rate Measurement CCCD
            let handle = u16(1)
            if handle == 7 {
                notifying = pdu.count >= 4 && pdu[3] & 0x01 != 0
                reply = [0x13]
            } else {
                reply = error(0x12, handle, 0x03)
            }
        default:
            guard let opcode = pdu.first, ATTOpcode(rawValue: opcode).isRequest else { return }
            reply = error(opcode, 0, 0x06)
        }
        try? server.send(reply)
    }
}
