import BandControllerLink
import Testing

@Suite struct ControllerAddressTests {
    @Test func pathsAndTCPAddressesAreRead() throws {
        #expect(try ControllerAddress.parse("/dev/ttyACM0").get() == .serial(path: "/dev/ttyACM0"))
        #expect(try ControllerAddress.parse("tcp:127.0.0.1:9000").get() == .tcp(host: "127.0.0.1", port: 9000))
        #expect(try ControllerAddress.parse("tcp:[::1]:9000").get() == .tcp(host: "::1", port: 9000))
        #expect(ControllerAddress.tcp(host: "::1", port: 9000).description == "tcp:[::1]:9000")
    }

    @Test func badAddressesSayWhy() {
        for (text, reason) in [("", "an empty path"), ("tcp:localhost", "no port"), ("tcp::9000", "no host"),
                               ("tcp:host:0", "1–65535"), ("tcp:host:70000", "1–65535"), ("tcp:host:x", "1–65535")] {
            guard case .failure(let error) = ControllerAddress.parse(text) else { Issue.record("\(text) accepted"); continue }
            #expect(error.description.contains(reason), "\(text): \(error)")
        }
    }

    @Test func aMissingOrNonTerminalPathIsRefusedByName() {
        guard case .failure(let missing) = ControllerPort.open(.serial(path: "/nonexistent/tty")) else { Issue.record("opened"); return }
        #expect(missing.description.contains("open /nonexistent/tty") && missing.description.contains("No such file"))
        guard case .failure(let notTTY) = ControllerPort.open(.serial(path: "/dev/null")) else { Issue.record("opened"); return }
        #expect(notTTY.description.contains("not a terminal"))
    }
}
