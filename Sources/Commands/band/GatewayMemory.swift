#if canImport(Glibc)
import Glibc
#endif

/// The gateway's malloc settings (glibc).
///
/// glibc gives each thread that allocates under contention an arena of its own, up to 8 per
/// core, and returns little of an arena's freed memory to the kernel. A gateway runs a session
/// thread per device: measured with 50 devices, the arenas held 30–53 MB each, 491 MB of a 550 MB
/// RSS (docs/performance.md). Two arenas are enough for threads that spend their time waiting
/// on links and take turns on one store connection; what the first history syncs allocated is
/// given back by a trim once a minute from the loop.
///
/// `mallopt` and `malloc_trim` are looked up at run time: Swift's Glibc module does not
/// include `<malloc.h>`, and a C target for two calls would put C where only the link, the
/// store and crypto belong. On a C library without them (musl) nothing is done.
enum GatewayMemory {
    /// `M_ARENA_MAX` in glibc's `<malloc.h>`.
    private static let arenaMaxOption: Int32 = -8
    static let arenas: Int32 = 2

    /// Caps malloc's arenas; called before any session thread starts. False when the C library
    /// has no `mallopt` or refused.
    @discardableResult
    static func capArenas() -> Bool {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return false }
        return unsafeBitCast(symbol, to: Mallopt.self)(arenaMaxOption, arenas) == 1
    }

    /// Gives the kernel back the free pages of every arena (`malloc_trim(0)`).
    static func trim() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }
}
