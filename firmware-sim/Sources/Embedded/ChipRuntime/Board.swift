/// What the firmware needs from the chip it runs on: the small board interface. The chip's
/// runtime (``FirmwareRuntime``) is generic over it — no existentials, so it compiles with Embedded Swift —
/// and two boards implement it: QEMU's `mps2-an386` (firmware-sim/board/, a Cortex-M4) and the
/// scripted board of the host tests (ChipRuntimeTests).
///
/// Logging is not a board call: the core frames its `StaticString` log lines onto the debug
/// channel itself (``FirmwareRuntime/log(_:)``).
public protocol Board {
    /// Band time since reset in milliseconds, monotonic (SysTick on the MCU; it may run faster
    /// than real time, as `bandsim --speed` does).
    mutating func uptimeMilliseconds() -> UInt64

    /// Band time from now on runs `factor` times faster than real time (1…``LinkMessage/maximumSpeed``).
    mutating func setBandSpeed(_ factor: UInt32)

    /// CPU cycles since reset (SysTick's count on the MCU): what the on-chip benchmark measures with.
    mutating func cycleCount() -> UInt64

    /// Sends bytes to the host (UART transmit; blocks until they are in the transmit register).
    mutating func transmit(_ bytes: UnsafeRawBufferPointer)

    /// The next byte the host sent, or nil when none is waiting (UART receive, non-blocking).
    mutating func receiveByte() -> UInt8?

    /// Sleeps until something may have happened (WFI on the MCU: the SysTick or UART interrupt).
    mutating func waitForEvent()

    /// Heap allocations since reset (the allocator hook on the MCU). The firmware reports it so a
    /// test can assert that nothing allocates after start-up.
    mutating func heapAllocationCount() -> UInt32

    /// Deepest stack use since reset in bytes (stack painting on the MCU), 0 where unknown.
    mutating func stackHighWaterBytes() -> UInt32

    /// Provokes a hard fault (the fault handler's test). Never returns on the MCU.
    mutating func provokeFault()

    /// Resets the chip (SYSRESETREQ on a Cortex-M): RAM and peripherals start over, flash stays.
    /// Never returns on the MCU.
    mutating func systemReset()

    // Flash, with a real chip's semantics: pages of ``flashPageSize`` bytes, an erase sets a whole
    // page to 0xFF, programming can only clear bits (the result is old AND new). On the MCU the
    // pages live in a host file through semihosting, so they survive a reset and a QEMU restart.

    /// Bytes per page.
    var flashPageSize: Int { get }
    /// Pages the firmware may use.
    var flashPageCount: Int { get }
    /// Copies `output.count` bytes from `page` at `offset`.
    mutating func flashRead(page: Int, offset: Int, into output: UnsafeMutableRawBufferPointer)
    /// Sets every byte of `page` to 0xFF.
    mutating func flashErase(page: Int)
    /// Programs `bytes` into `page` at `offset` (old AND new).
    mutating func flashProgram(page: Int, offset: Int, _ bytes: UnsafeRawBufferPointer)

    /// Writes text to the board's debug port (a second UART: UART1 on the MCU), for a firmware
    /// whose first UART speaks HCI to a controller. Default: nowhere.
    mutating func debugWrite(_ bytes: UnsafeRawBufferPointer)

    /// The next byte the debug port received, or nil (non-blocking): the band's hosted build takes
    /// its configuration there. Default: none.
    mutating func debugReceiveByte() -> UInt8?

    /// Whether the runtime's own bring-up services answer on this board's port: ATT frames the
    /// application does not take (from ``BoardAttributeSource``), the self-test (link 0x06) and
    /// the on-chip bench (0x07). A constant of the image: where it is false (the hosted band's
    /// debug port, whose ATT is its Bluetooth host's) none of that code is linked, and those
    /// requests get "link: unknown message". Default true.
    static var answersBringUpRequests: Bool { get }
}

extension Board {
    public static var answersBringUpRequests: Bool { true }
    public mutating func debugWrite(_ bytes: UnsafeRawBufferPointer) {}
    public mutating func debugReceiveByte() -> UInt8? { nil }
}
