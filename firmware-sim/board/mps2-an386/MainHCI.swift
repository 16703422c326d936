// The hosted build's entry (build.sh --hci): the chip's own BLE host (HostedRuntime) speaking H4
// to a Bluetooth controller on UART0, its debug lines on UART1, its bonds in flash pages.
import ChipRuntime

nonisolated(unsafe) var firmware = HostedRuntime(board: MPS2Board())

@_cdecl("swift_main")
public func swiftMain() {
    firmware.start()
    firmware.run()
}
