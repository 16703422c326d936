import BandReader
import Foundation
import Testing
@testable import BandGateway

/// Readings a flooding device's guard dropped are counted per device, in `band status --json`
/// and in `/metrics`.
struct GatewayDropCountTests {
    @Test func droppedReadingsAreCountedPerDeviceInStatusAndMetrics() throws {
        let strap = GatewayDevice(address: "sim:/run/strap.sock", kind: .heartRateStrap, person: nil, paired: false)
        let band = GatewayDevice(address: "sim:/run/band.sock", kind: .bandkit, person: nil, paired: true)
        let status = GatewayStatus(dayStart: { $0 })
        status.setDevices([strap, band])
        let now = Date(timeIntervalSince1970: 1_796_040_000)
        status.record(.readingsDropped(count: 700), from: strap.address, at: now)
        status.record(.readingsDropped(count: 33), from: strap.address, at: now)

        let snapshot = status.snapshot()
        #expect(snapshot.devices.map(\.readingsDropped) == [733, 0])
        let json = try JSONSerialization.jsonObject(with: Data(snapshot.json(at: now).utf8)) as? [String: Any]
        let devices = json?["devices"] as? [[String: Any]]
        #expect(devices?.map { $0["readings_dropped"] as? Int } == [733, 0])

        let text = String(decoding: GatewayMetrics().exposition(of: status, at: now), as: UTF8.self)
        #expect(text.contains("# TYPE bandkit_gateway_readings_dropped_total counter"))
        #expect(text.contains("bandkit_gateway_readings_dropped_total{device=\"sim:/run/strap.sock\"} 733"))
        #expect(text.contains("bandkit_gateway_readings_dropped_total{device=\"sim:/run/band.sock\"} 0"))
    }
}
