// The hosted band's entry (build.sh --band): the band (ChipBand on FirmwareRuntime, as in the
// bridge build) behind its own BLE host (HostedBand): H4 to a controller on UART0, the band's
// configuration and frames on UART1, bonds in flash pages.
import BandFirmwareCore
import ChipRuntime

nonisolated(unsafe) var firmware = HostedBand(board: MPS2Board())

@_cdecl("swift_main")
public func swiftMain() {
    firmware.start()
    firmware.run()
}
