// Board support for QEMU's mps2-an386 (ARM MPS2 with a Cortex-M4, CMSDK peripherals): vector
// table, reset, SysTick as the band's millisecond clock, the UART0 driver, a hard-fault handler
// that reports its PC on the UART, the allocation hook and stack painting. The band's logic is
// Swift (firmware-sim/Sources/ChipRuntime, generic over a Board); this file is the only C.
// Register addresses: ARM AN386 application note, CMSDK UART (DDI 0479), ARMv7-M ARM (SysTick, SCB).
#include <stdint.h>
#include <stddef.h>

extern void swift_main(void);
extern uint32_t _estack, _sstack, _sbss, _ebss, _sdata, _edata, _sidata, _sheap, _eheap;

// ---- CMSDK UART0 ----
#define UART0_DATA      (*(volatile uint32_t *)0x40004000)
#define UART0_STATE     (*(volatile uint32_t *)0x40004004)  // bit 0 TX full, bit 1 RX full
#define UART0_CTRL      (*(volatile uint32_t *)0x40004008)  // bit 0 TX en, bit 1 RX en, bit 3 RX irq en
#define UART0_INTSTATUS (*(volatile uint32_t *)0x4000400C)  // write 1 to clear: bit 1 RX
#define UART0_BAUDDIV   (*(volatile uint32_t *)0x40004010)
// ---- CMSDK UART1: the hosted builds' debug port (their UART0 speaks H4); the band's hosted build
//      also takes its configuration (link messages) on it ----
#define UART1_DATA      (*(volatile uint32_t *)0x40005000)
#define UART1_STATE     (*(volatile uint32_t *)0x40005004)
#define UART1_CTRL      (*(volatile uint32_t *)0x40005008)
#define UART1_INTSTATUS (*(volatile uint32_t *)0x4000500C)
#define UART1_BAUDDIV   (*(volatile uint32_t *)0x40005010)
// ---- System control ----
#define SYST_CSR   (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR   (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR   (*(volatile uint32_t *)0xE000E018)
#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100)
#define CPU_HZ 25000000u   // AN386 system clock

void board_uart_write(uint8_t c) { while (UART0_STATE & 1u) {} UART0_DATA = c; }
int32_t board_uart_read(void) { return (UART0_STATE & 2u) ? (int32_t)(UART0_DATA & 0xFFu) : -1; }
void uart0_rx_handler(void) { UART0_INTSTATUS = 2u; }   // wakes the WFI; the main loop reads DATA
int32_t board_debug_read(void) { return (UART1_STATE & 2u) ? (int32_t)(UART1_DATA & 0xFFu) : -1; }
void uart1_rx_handler(void) { UART1_INTSTATUS = 2u; }   // wakes the WFI; the main loop reads DATA
void board_debug_write(const uint8_t *bytes, uint32_t count) {
  for (uint32_t i = 0; i < count; i++) { while (UART1_STATE & 1u) {} UART1_DATA = bytes[i]; }
}

// ---- Clock: SysTick every 1/1000 s of CPU time (25,000 cycles); each tick adds `band_ms_per_tick`
//      ms of band time, so the band's clock can run faster than real time (bandsim's --speed) ----
static volatile uint32_t ticks_low, ticks_high;   // band milliseconds
static volatile uint64_t systicks;                 // SysTick interrupts: real milliseconds of CPU time
static volatile uint32_t band_ms_per_tick = 1;
void systick_handler(void) {
  uint32_t t = ticks_low + band_ms_per_tick;
  if (t < ticks_low) ticks_high++;
  ticks_low = t;
  systicks++;
}
uint64_t board_uptime_ms(void) {
  uint32_t hi, lo;
  do { hi = ticks_high; lo = ticks_low; } while (hi != ticks_high);
  return ((uint64_t)hi << 32) | lo;
}
void board_set_band_speed(uint32_t ms_per_tick) { band_ms_per_tick = ms_per_tick; }
// CPU cycles since reset: the SysTick interrupts counted plus the current count-down.
uint64_t board_cycle_count(void) {
  uint64_t ticks; uint32_t current;
  do { ticks = systicks; current = SYST_CVR; } while (ticks != systicks);
  return ticks * (CPU_HZ / 1000u) + (CPU_HZ / 1000u - 1u - current);
}
void board_wait_for_event(void) { __asm__ volatile("wfi"); }

// ---- Semihosting (QEMU -semihosting-config enable=on): the exit code a test asserts on ----
static int semihost(int op, void *arg) { register int r0 __asm__("r0") = op; register void *r1 __asm__("r1") = arg; __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory"); return r0; }
void semihost_exit(int32_t code) { uint32_t block[2] = {0x20026, (uint32_t)code}; semihost(0x20, block); for (;;) {} }

// ---- Flash: FLASH_PAGES pages of 4 KB (an nRF52's page) in the host file "bandkit-m4.flash" in
//      QEMU's working directory, through semihosting; erase = 0xFF, program = old AND new ----
#define FLASH_PAGE_SIZE 4096u
#define FLASH_PAGES 16u   // FlashLayout.pageCount: boot record 0–1, state log 2–3, minute ring 4–13, bonds 14–15
static const char flash_name[] = "bandkit-m4.flash";
static int flash_handle = -2;   // -2: not opened yet; -1: no file (reads see erased pages, writes are lost)
static uint8_t flash_chunk[256];
static int sh_call(int op, uint32_t a, uint32_t b, uint32_t c) { uint32_t block[3] = {a, b, c}; return semihost(op, block); }
static void flash_open(void) {
  if (flash_handle != -2) return;
  flash_handle = sh_call(0x01, (uint32_t)flash_name, 3 /* "r+b" */, sizeof flash_name - 1);
  int length = flash_handle >= 0 ? semihost(0x0C, (uint32_t[]){(uint32_t)flash_handle}) : 0;
  if (length >= (int)(FLASH_PAGE_SIZE * FLASH_PAGES)) return;
  if (flash_handle < 0) flash_handle = sh_call(0x01, (uint32_t)flash_name, 7 /* "w+b" */, sizeof flash_name - 1);
  if (flash_handle < 0) return;
  // A new file is erased throughout; a short one (written by an image with fewer pages) keeps its
  // whole pages, and only the pages after them start erased.
  uint32_t from = length > 0 ? (uint32_t)length / FLASH_PAGE_SIZE * FLASH_PAGE_SIZE : 0;
  for (uint32_t i = 0; i < sizeof flash_chunk; i++) flash_chunk[i] = 0xFF;
  sh_call(0x0A, (uint32_t)flash_handle, from, 0);
  for (uint32_t n = from; n < FLASH_PAGE_SIZE * FLASH_PAGES; n += sizeof flash_chunk) sh_call(0x05, (uint32_t)flash_handle, (uint32_t)flash_chunk, sizeof flash_chunk);
}
static int flash_range_ok(uint32_t page, uint32_t offset, uint32_t count) {
  return page < FLASH_PAGES && offset <= FLASH_PAGE_SIZE && count <= FLASH_PAGE_SIZE - offset;
}
uint32_t board_flash_page_size(void) { return FLASH_PAGE_SIZE; }
uint32_t board_flash_page_count(void) { return FLASH_PAGES; }
void board_flash_read(uint32_t page, uint32_t offset, uint8_t *out, uint32_t count) {
  flash_open();
  for (uint32_t i = 0; i < count; i++) out[i] = 0xFF;
  if (flash_handle < 0 || !flash_range_ok(page, offset, count)) return;
  sh_call(0x0A, (uint32_t)flash_handle, page * FLASH_PAGE_SIZE + offset, 0);
  sh_call(0x06, (uint32_t)flash_handle, (uint32_t)out, count);
}
void board_flash_erase(uint32_t page) {
  flash_open();
  if (flash_handle < 0 || page >= FLASH_PAGES) return;
  for (uint32_t i = 0; i < sizeof flash_chunk; i++) flash_chunk[i] = 0xFF;
  sh_call(0x0A, (uint32_t)flash_handle, page * FLASH_PAGE_SIZE, 0);
  for (uint32_t n = 0; n < FLASH_PAGE_SIZE; n += sizeof flash_chunk) sh_call(0x05, (uint32_t)flash_handle, (uint32_t)flash_chunk, sizeof flash_chunk);
}
void board_flash_program(uint32_t page, uint32_t offset, const uint8_t *bytes, uint32_t count) {
  flash_open();
  if (flash_handle < 0 || !flash_range_ok(page, offset, count)) return;
  for (uint32_t done = 0; done < count; done += sizeof flash_chunk) {
    uint32_t n = count - done < sizeof flash_chunk ? count - done : sizeof flash_chunk;
    uint32_t at = page * FLASH_PAGE_SIZE + offset + done;
    sh_call(0x0A, (uint32_t)flash_handle, at, 0);
    sh_call(0x06, (uint32_t)flash_handle, (uint32_t)flash_chunk, n);
    for (uint32_t i = 0; i < n; i++) flash_chunk[i] &= bytes[done + i];   // programming only clears bits
    sh_call(0x0A, (uint32_t)flash_handle, at, 0);
    sh_call(0x05, (uint32_t)flash_handle, (uint32_t)flash_chunk, n);
  }
}

// ---- Hard fault: "HARDFAULT pc=0x… lr=0x…" on the UART, outside any frame, then exit code 3 ----
static void put_text(const char *s) { while (*s) board_uart_write((uint8_t)*s++); }
static void put_hex(uint32_t v) { for (int i = 28; i >= 0; i -= 4) { uint32_t d = (v >> i) & 0xF; board_uart_write((uint8_t)(d < 10 ? '0' + d : 'a' + d - 10)); } }
void hard_fault_report(uint32_t *frame) {
  // The exception frame: r0 r1 r2 r3 r12 lr pc xpsr (ARMv7-M ARM B1.5.6).
  put_text("\r\nHARDFAULT pc=0x"); put_hex(frame[6]); put_text(" lr=0x"); put_hex(frame[5]); put_text("\r\n");
  semihost_exit(3);
}
__attribute__((naked)) void hard_fault_handler(void) {
  __asm__ volatile("tst lr, #4\n ite eq\n mrseq r0, msp\n mrsne r0, psp\n b hard_fault_report\n");
}
void board_provoke_fault(void) { __asm__ volatile("udf #0"); }   // UsageFault, escalated to HardFault
// SYSRESETREQ through the SCB's AIRCR (key 0x05FA): QEMU resets the machine (RAM, SysTick, UART; the
// image is loaded again) and the firmware boots from flash, as after a watchdog reset on a real chip.
void board_system_reset(void) {
  __asm__ volatile("dsb" ::: "memory");
  *(volatile uint32_t *)0xE000ED0Cu = 0x05FA0004u;
  __asm__ volatile("dsb" ::: "memory");
  for (;;) {}
}
void default_handler(void) { put_text("\r\nUNEXPECTED EXCEPTION\r\n"); semihost_exit(4); }

// ---- Allocation hook: the Embedded Swift runtime allocates through posix_memalign; count every call ----
uint32_t board_heap_allocations;
static uint8_t *heap_next;
int posix_memalign(void **result, size_t alignment, size_t size) {
  board_heap_allocations++;
  if (!heap_next) heap_next = (uint8_t *)&_sheap;
  uintptr_t p = ((uintptr_t)heap_next + alignment - 1) & ~(uintptr_t)(alignment - 1);
  if (p + size > (uintptr_t)&_eheap) return 12;   // ENOMEM
  heap_next = (uint8_t *)(p + size);
  *result = (void *)p;
  return 0;
}
void free(void *p) { (void)p; }   // a bump arena: the count, not reuse, is the point

// ---- Stack painting: every word below the reset handler's frame holds PAINT until used ----
#define PAINT 0xC0FFEE5Au
__attribute__((always_inline)) static inline uint32_t current_sp(void) { uint32_t sp; __asm__ volatile("mov %0, sp" : "=r"(sp)); return sp; }
uint32_t board_stack_high_water(void) {
  uint32_t *p = &_sstack;
  while (p < &_estack && *p == PAINT) p++;
  return (uint32_t)((uintptr_t)&_estack - (uintptr_t)p);
}

// ---- libc pieces the compiler may call ----
void *memset(void *d, int c, size_t n) { uint8_t *p = d; while (n--) *p++ = (uint8_t)c; return d; }
void *memcpy(void *d, const void *s, size_t n) { uint8_t *p = d; const uint8_t *q = s; while (n--) *p++ = *q++; return d; }
void *memmove(void *d, const void *s, size_t n) { uint8_t *p = d; const uint8_t *q = s; if (p < q) while (n--) *p++ = *q++; else { p += n; q += n; while (n--) *--p = *--q; } return d; }
int memcmp(const void *a, const void *b, size_t n) { const uint8_t *p = a, *q = b; for (; n; n--, p++, q++) if (*p != *q) return *p - *q; return 0; }
void __aeabi_memclr(void *d, size_t n) { memset(d, 0, n); }
void __aeabi_memclr4(void *d, size_t n) { memset(d, 0, n); }
void __aeabi_memclr8(void *d, size_t n) { memset(d, 0, n); }
void __aeabi_memcpy(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memcpy4(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memcpy8(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memmove(void *d, const void *s, size_t n) { memmove(d, s, n); }
void __aeabi_memmove4(void *d, const void *s, size_t n) { memmove(d, s, n); }
void __aeabi_memset(void *d, size_t n, int c) { memset(d, c, n); }
void __aeabi_memset4(void *d, size_t n, int c) { memset(d, c, n); }

void reset_handler(void) {
  // The FPU (FPv4-SP) on: Swift code built for cortex-m4 keeps values in its registers (vpush
  // d8 …) even under the soft-float ABI; with it off the first such instruction faults.
  *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;   // CPACR: CP10 and CP11 full access
  __asm__ volatile("dsb\n isb" ::: "memory");
  uint32_t *s = &_sidata, *d = &_sdata;
  while (d < &_edata) *d++ = *s++;
  for (d = &_sbss; d < &_ebss;) *d++ = 0;
  for (d = &_sstack; d < (uint32_t *)(current_sp() - 64);) *d++ = PAINT;
  UART0_BAUDDIV = 16;
  UART0_CTRL = 1u | 2u | 8u;            // TX, RX, RX interrupt
  UART1_BAUDDIV = 16;
  UART1_CTRL = 1u | 2u | 8u;            // TX, RX, RX interrupt
  NVIC_ISER0 = 1u << 0 | 1u << 2;       // IRQ 0: UART0 RX, IRQ 2: UART1 RX
  SYST_RVR = CPU_HZ / 1000u - 1u;
  SYST_CVR = 0;
  SYST_CSR = 7u;                        // processor clock, interrupt, enable
  swift_main();
  semihost_exit(2);                     // swift_main never returns
}

__attribute__((section(".vectors"))) const void *vectors[16 + 3] = {
  &_estack, reset_handler, default_handler, hard_fault_handler,
  default_handler, default_handler, default_handler, 0, 0, 0, 0,
  default_handler, default_handler, 0, default_handler, systick_handler,
  uart0_rx_handler,                     // IRQ 0
  default_handler,                      // IRQ 1: UART0 TX (not enabled)
  uart1_rx_handler,                     // IRQ 2
};
uint32_t board_heap_allocation_count(void) { return board_heap_allocations; }

// ---- libgcc's objects carry exception-index entries naming the ARM EHABI personality routines;
//      nothing here unwinds, so these stand in for them and keep libgcc's unwinder (4 KB) out ----
void __aeabi_unwind_cpp_pr0(void) { board_provoke_fault(); }
void __aeabi_unwind_cpp_pr1(void) { board_provoke_fault(); }
void __aeabi_unwind_cpp_pr2(void) { board_provoke_fault(); }

// ---- Run-time helpers the compiler calls for 64-bit arithmetic (compiler-rt's, not shipped for
//      this target in the toolchain) and the one libc call the Swift stdlib may make ----
uint64_t __aeabi_llsl(uint64_t value, int shift) { return shift >= 64 ? 0 : (shift <= 0 ? value : value << shift); }
uint64_t __aeabi_llsr(uint64_t value, int shift) { return shift >= 64 ? 0 : (shift <= 0 ? value : value >> shift); }
void __aeabi_memset8(void *d, size_t n, int c) { memset(d, c, n); }
uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem) {
  if (d == 0) { board_provoke_fault(); }   // division by zero: fault loudly, as Swift's trap would
  uint64_t q = 0, r = 0;
  for (int i = 63; i >= 0; i--) {
    r = (r << 1) | ((n >> i) & 1u);
    if (r >= d) { r -= d; q |= (uint64_t)1 << i; }
  }
  if (rem) *rem = r;
  return q;
}
// Quotient in r0:r1, remainder in r2:r3 (RTABI §4.3.1), over __udivmoddi4.
__attribute__((naked)) void __aeabi_uldivmod(void) {
  __asm__ volatile("push {r6, lr}\n sub sp, sp, #16\n add r6, sp, #8\n str r6, [sp]\n bl __udivmoddi4\n"
                   " ldr r2, [sp, #8]\n ldr r3, [sp, #12]\n add sp, sp, #16\n pop {r6, pc}\n");
}
// The firmware's randomness comes only from its DRBG (seeded by the host); the stdlib's default
// generator is never meant to run here, and if it does the image faults and says where.
void arc4random_buf(void *buffer, size_t count) { (void)buffer; (void)count; board_provoke_fault(); }
