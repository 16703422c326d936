// The bridge build's entry: the one FirmwareRuntime in static storage running the band's logic
// (ChipBand), its UART0 carrying link messages and ATT frames to `bandsim serve --firmware`.
import BandFirmwareCore
import ChipRuntime

nonisolated(unsafe) var firmware = FirmwareRuntime(board: MPS2Board(), application: ChipBand())

@_cdecl("swift_main")
public func swiftMain() {
    firmware.start()
    firmware.run()
}
