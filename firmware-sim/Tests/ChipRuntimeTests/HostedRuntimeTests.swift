import BandLEHost
import BandWire
import ChipRuntime
import Foundation
import Testing

/// The hosted build's runtime (``HostedRuntime``) on the scripted board: H4 in and out of the
/// board's UART, the controller's bring-up, a central's ATT over ACL, the debug lines, the bonds
/// read from flash at start-up.
@Suite struct HostedRuntimeTests {
    /// (the command the chip sends, the controller's Command Complete), as a controller with LE and
    /// 27-byte × 4 ACL buffers that does not know LE Read Buffer Size v2.
    static let bringUp: [(opcode: UInt16, answer: String)] = [
        (0x0C03, "04 0e 04 01 03 0c 00"),
        (0x1001, "04 0e 0c 01 01 10 00 0d 00 00 0d 5f 00 00 00"),
        (0x1003, "04 0e 0c 01 03 10 00 00 00 00 00 40 00 00 00"),
        (0x2060, "04 0e 04 01 60 20 01"),
        (0x2002, "04 0e 07 01 02 20 00 1b 00 04"),
        (0x1009, "04 0e 0a 01 09 10 00 66 55 44 33 22 11"),
        (0x0C01, "04 0e 04 01 01 0c 00"),
        (0x2001, "04 0e 04 01 01 20 00"),
        (0x2006, "04 0e 04 01 06 20 00"),
        (0x2008, "04 0e 04 01 08 20 00"),
        (0x2009, "04 0e 04 01 09 20 00"),
        (0x200A, "04 0e 04 01 0a 20 00"),
    ]

    /// The H4 packets in `bytes` (commands and ACL only: what a host sends).
    static func packets(_ bytes: [UInt8]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            let length = bytes[offset] == 0x01 ? 4 + Int(bytes[offset + 3]) : 5 + (Int(bytes[offset + 3]) | Int(bytes[offset + 4]) << 8)
            result.append(Array(bytes[offset..<(offset + length)]))
            offset += length
        }
        return result
    }

    static func lines(_ board: ScriptedBoard) -> [String] {
        String(decoding: board.debug, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// A chip brought up against the script; its commands checked one by one.
    static func runningChip(board: ScriptedBoard = ScriptedBoard()) -> HostedRuntime<ScriptedBoard> {
        var chip = HostedRuntime(board: board)
        chip.start()
        for step in bringUp {
            let sent = packets(chip.io.bonds.board.outbound)
            chip.io.bonds.board.outbound.removeAll()
            #expect(sent.count == 1 && sent.first.map { UInt16($0[1]) | UInt16($0[2]) << 8 } == step.opcode,
                    "expected command \(String(step.opcode, radix: 16)), the chip sent \(sent.map { Hex.encode($0) })")
            chip.io.bonds.board.inbound.append(contentsOf: hex(step.answer))
            chip.poll()
        }
        return chip
    }

    @Test("Bring-up from HCI Reset to advertising, said on the debug port")
    func bringUpToAdvertising() {
        let chip = Self.runningChip()
        #expect(chip.host.phase == .running && chip.host.advertising)
        #expect(Self.lines(chip.io.bonds.board) == [
            "hosted: BLE host on H4, 0 bond(s) in flash, 0 damaged slot(s)",
            "hosted: controller ready, address 112233445566, ACL 27 B x 4",
            "hosted: advertising",
        ])
    }

    @Test("A central's Exchange MTU and a read over ACL; advertising again after the link")
    func link() {
        var chip = Self.runningChip()
        chip.io.bonds.board.debug.removeAll()
        chip.io.bonds.board.inbound.append(contentsOf: hex("04 3e 13 01 00 40 00 01 01 66 55 44 33 22 11 18 00 00 00 48 00 00"))
        chip.io.bonds.board.inbound.append(contentsOf: hex("02 40 00 07 00 03 00 04 00 02 f7 00"))   // Exchange MTU 247
        chip.poll()
        #expect(Self.packets(chip.io.bonds.board.outbound).map { Hex.encode($0) } == [compactHex("02 40 00 07 00 03 00 04 00 03 f7 00")])
        chip.io.bonds.board.outbound.removeAll()
        chip.io.bonds.board.inbound.append(contentsOf: hex("04 13 05 01 40 00 01 00"))                 // its packet completed
        chip.io.bonds.board.inbound.append(contentsOf: hex("02 40 00 07 00 03 00 04 00 0a 03 00"))   // Read Device Name
        chip.poll()
        #expect(Self.packets(chip.io.bonds.board.outbound).map { Hex.encode($0) }
                == [compactHex("02 40 00 0f 00 0b 00 04 00 0b") + Hex.encode(Array("BandKit M4".utf8))])
        chip.io.bonds.board.outbound.removeAll()
        chip.io.bonds.board.inbound.append(contentsOf: hex("04 05 04 00 40 00 13"))                    // Disconnection Complete
        chip.poll()
        #expect(Self.packets(chip.io.bonds.board.outbound).map { Hex.encode($0) } == [compactHex("01 0a 20 01 01")])
        #expect(Self.lines(chip.io.bonds.board) == [
            "hosted: connected, handle 64, central 112233445566, interval 24",
            "hosted: ATT_MTU 247",
            "hosted: disconnected, handle 64, reason 0x13",
        ])
    }

    @Test("Bonds kept in flash before a reset are the host's after it")
    func bondsFromFlash() {
        var stored = ChipBondStore(board: ScriptedBoard())
        let bond = LEBond(peer: LEAddress(BluetoothAddress(0x11_22_33_44_55_66), type: .random),
                          longTermKey: FixedBytes([UInt8](repeating: 0x5A, count: 16)), authenticated: true)
        let saved = stored.save(bond)
        #expect(saved)
        var board = stored.board
        board.debug.removeAll()
        let chip = Self.runningChip(board: board)
        #expect(chip.io.bonds.bond(with: bond.peer) == bond)
        #expect(Self.lines(chip.io.bonds.board).first == "hosted: BLE host on H4, 1 bond(s) in flash, 0 damaged slot(s)")
    }

    @Test("A controller that refuses a bring-up command: the chip stops and says which")
    func refused() {
        var chip = HostedRuntime(board: ScriptedBoard())
        chip.start()
        chip.io.bonds.board.inbound.append(contentsOf: hex("04 0e 04 01 03 0c 12"))
        chip.poll()
        #expect(chip.host.phase == .failed)
        #expect(Self.lines(chip.io.bonds.board).last == "hosted: stopped: opcode 0x0c03 refused, status 0x12")
    }

    @Test("Passkeys are shown with six digits", arguments: [(0, "000000"), (42, "000042"), (123_456, "123456"), (999_999, "999999")])
    func passkey(value: UInt32, shown: String) {
        var io = ChipHostIO(bonds: ChipBondStore(board: ScriptedBoard()))
        io.report(LEHostEvent<UInt16>.displayPasskey(value))
        #expect(Self.lines(io.bonds.board) == ["hosted: passkey \(shown)"])
    }
}

/// Hex without spaces.
func compactHex(_ hex: String) -> String { Hex.encode(ChipRuntimeTests.hex(hex)) }
