import BandHCI
import BandLEHost
import BandTestSupport
import BandWire
import Testing

/// LE Data Length: asked for on every link when configured, reported when the controller
/// changes it, and quietly done without on a controller that does not offer it.
@Suite struct LEHostDataLengthTests {
    func host(octets: UInt16?) -> ScriptedHost {
        var configuration = ScriptedHost.name.withUnsafeBytes {
            LEHostConfiguration.band(name: $0, services: [BluetoothUUID(0x180D)], attMTU: 247, ioCapability: 0x00)
        }
        configuration.dataLengthOctets = octets
        var host = ScriptedHost(configuration: configuration)
        host.bringUp()
        return host
    }

    @Test func aLinkAsksForLongerPacketsAndHearsTheChange() {
        var host = host(octets: 251)
        host.controller(ScriptedHost.connectionComplete)
        // LE Set Data Length: handle 0x0040, 251 octets, 2120 µs.
        #expect(host.takeSent() == [compact("01 22 20 06 40 00 fb 00 48 08")])
        host.controller("04 0e 06 01 22 20 00 40 00")
        _ = host.takeEvents()
        host.controller("04 3e 0b 07 40 00 fb 00 48 08 fb 00 48 08")
        #expect(host.takeEvents() == [.dataLengthChanged(transmitOctets: 251, receiveOctets: 251)])
        // Another handle's change is not this link's.
        host.controller("04 3e 0b 07 41 00 fb 00 48 08 fb 00 48 08")
        #expect(host.takeEvents().isEmpty)
    }

    @Test func aControllerWithoutDataLengthIsNotAnError() {
        for status in ["01", "11"] {
            var host = host(octets: 251)
            host.controller(ScriptedHost.connectionComplete)
            _ = host.takeSent()
            _ = host.takeEvents()
            host.controller("04 0e 06 01 22 20 \(status) 40 00")
            #expect(host.takeEvents().isEmpty)
        }
        var refusing = host(octets: 251)
        refusing.controller(ScriptedHost.connectionComplete)
        _ = refusing.takeEvents()
        refusing.controller("04 0e 06 01 22 20 12 40 00")
        #expect(refusing.takeEvents() == [.controllerError(.controllerRefused(.leSetDataLength, .invalidParameters))])
    }

    @Test func withoutTheOptionNothingIsAsked() {
        var host = host(octets: nil)
        host.controller(ScriptedHost.connectionComplete)
        #expect(host.takeSent().isEmpty)
    }

    @Test func outOfRangeValuesAreRefusedAtTheirOffset() throws {
        #expect(LESetDataLength(handle: 0x40, octets: 1000).octets == 251)
        #expect(LESetDataLength(handle: 0x40, octets: 5).time == 328)
        let tooShort: [UInt8] = [0x07, 0x40, 0x00, 0x1A, 0x00, 0x48, 0x08, 0xFB, 0x00, 0x48, 0x08]
        let error = tooShort.withUnsafeBytes { raw -> ParseError? in
            var cursor = ByteCursor(raw)
            do throws(ParseError) { _ = try LEDataLengthChange(parsing: &cursor); return nil } catch { return error }
        }
        #expect(error?.offset == 3)
        let good: [UInt8] = [0x07, 0x40, 0x00, 0xFB, 0x00, 0x48, 0x08, 0x1B, 0x00, 0x48, 0x01]
        let parsed = try good.withUnsafeBytes { raw throws(ParseError) in
            var cursor = ByteCursor(raw)
            return try LEDataLengthChange(parsing: &cursor)
        }
        #expect(parsed == LEDataLengthChange(handle: 0x40, transmitOctets: 251, transmitTime: 2120, receiveOctets: 27, receiveTime: 328))
    }
}
