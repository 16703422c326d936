// The mps2-an386 board (start.c's C functions) behind the Board protocol, for both images'
// entries: Main.swift (the bridge build), MainHCI.swift (the hosted bring-up build, H4 on UART0) and
// MainBand.swift (the hosted band: H4 on UART0, configuration and truth on UART1).
import ChipRuntime

@_silgen_name("board_uart_write") func board_uart_write(_ byte: UInt8)
@_silgen_name("board_uart_read") func board_uart_read() -> Int32
@_silgen_name("board_uptime_ms") func board_uptime_ms() -> UInt64
@_silgen_name("board_cycle_count") func board_cycle_count() -> UInt64
@_silgen_name("board_set_band_speed") func board_set_band_speed(_ millisecondsPerTick: UInt32)
@_silgen_name("board_wait_for_event") func board_wait_for_event()
@_silgen_name("board_stack_high_water") func board_stack_high_water() -> UInt32
@_silgen_name("board_provoke_fault") func board_provoke_fault()
@_silgen_name("board_system_reset") func board_system_reset()
@_silgen_name("board_flash_page_size") func board_flash_page_size() -> UInt32
@_silgen_name("board_flash_page_count") func board_flash_page_count() -> UInt32
@_silgen_name("board_flash_read") func board_flash_read(_ page: UInt32, _ offset: UInt32, _ output: UnsafeMutableRawPointer?, _ count: UInt32)
@_silgen_name("board_flash_erase") func board_flash_erase(_ page: UInt32)
@_silgen_name("board_flash_program") func board_flash_program(_ page: UInt32, _ offset: UInt32, _ bytes: UnsafeRawPointer?, _ count: UInt32)
@_silgen_name("board_heap_allocation_count") func board_heap_allocation_count() -> UInt32
@_silgen_name("board_debug_write") func board_debug_write(_ bytes: UnsafeRawPointer?, _ count: UInt32)
@_silgen_name("board_debug_read") func board_debug_read() -> Int32

struct MPS2Board: Board {
    mutating func uptimeMilliseconds() -> UInt64 { board_uptime_ms() }
    mutating func cycleCount() -> UInt64 { board_cycle_count() }
    mutating func setBandSpeed(_ factor: UInt32) { board_set_band_speed(factor) }
    mutating func transmit(_ bytes: UnsafeRawBufferPointer) { for byte in bytes { board_uart_write(byte) } }
    mutating func receiveByte() -> UInt8? {
        let byte = board_uart_read()
        return byte < 0 ? nil : UInt8(truncatingIfNeeded: byte)
    }
    mutating func waitForEvent() { board_wait_for_event() }
    mutating func heapAllocationCount() -> UInt32 { board_heap_allocation_count() }
    mutating func stackHighWaterBytes() -> UInt32 { board_stack_high_water() }
    mutating func provokeFault() { board_provoke_fault() }
    mutating func systemReset() { board_system_reset() }
    var flashPageSize: Int { Int(board_flash_page_size()) }
    var flashPageCount: Int { Int(board_flash_page_count()) }
    mutating func flashRead(page: Int, offset: Int, into output: UnsafeMutableRawBufferPointer) {
        board_flash_read(UInt32(page), UInt32(offset), output.baseAddress, UInt32(output.count))
    }
    mutating func flashErase(page: Int) { board_flash_erase(UInt32(page)) }
    mutating func flashProgram(page: Int, offset: Int, _ bytes: UnsafeRawBufferPointer) {
        board_flash_program(UInt32(page), UInt32(offset), bytes.baseAddress, UInt32(bytes.count))
    }
    mutating func debugWrite(_ bytes: UnsafeRawBufferPointer) { board_debug_write(bytes.baseAddress, UInt32(bytes.count)) }
    mutating func debugReceiveByte() -> UInt8? {
        let byte = board_debug_read()
        return byte < 0 ? nil : UInt8(truncatingIfNeeded: byte)
    }
}
