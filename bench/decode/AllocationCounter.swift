// Counts heap allocations without LD_PRELOAD, ltrace or valgrind: this executable defines
// malloc, calloc, realloc, aligned_alloc, posix_memalign and memalign itself and is linked
// with --export-dynamic, so the dynamic linker binds every call in the process (the Swift
// runtime's swift_slowAlloc included) to these definitions, which count and forward to
// glibc's own entry points (__libc_malloc & co., exported by glibc for exactly this use).
// free is not interposed: the memory still comes from glibc's allocator.
//
// Only plain integer globals are touched here: they are statically initialised, so counting
// works even for allocations made before main.

@_silgen_name("__libc_malloc") func libcMalloc(_ size: Int) -> UnsafeMutableRawPointer?
@_silgen_name("__libc_calloc") func libcCalloc(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer?
@_silgen_name("__libc_realloc") func libcRealloc(_ pointer: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer?
@_silgen_name("__libc_memalign") func libcMemalign(_ alignment: Int, _ size: Int) -> UnsafeMutableRawPointer?

nonisolated(unsafe) var allocationCount = 0

@_cdecl("malloc")
func countingMalloc(_ size: Int) -> UnsafeMutableRawPointer? {
    allocationCount &+= 1
    return libcMalloc(size)
}

@_cdecl("calloc")
func countingCalloc(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer? {
    allocationCount &+= 1
    return libcCalloc(count, size)
}

@_cdecl("realloc")
func countingRealloc(_ pointer: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
    allocationCount &+= 1
    return libcRealloc(pointer, size)
}

@_cdecl("aligned_alloc")
func countingAlignedAlloc(_ alignment: Int, _ size: Int) -> UnsafeMutableRawPointer? {
    allocationCount &+= 1
    return libcMemalign(alignment, size)
}

@_cdecl("memalign")
func countingMemalign(_ alignment: Int, _ size: Int) -> UnsafeMutableRawPointer? {
    allocationCount &+= 1
    return libcMemalign(alignment, size)
}

@_cdecl("posix_memalign")
func countingPosixMemalign(_ result: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ alignment: Int, _ size: Int) -> Int32 {
    allocationCount &+= 1
    guard let pointer = libcMemalign(alignment, size) else { return 12 }  // ENOMEM
    result.pointee = pointer
    return 0
}
