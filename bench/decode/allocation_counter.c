// Counts heap allocations without LD_PRELOAD, ltrace or valgrind: linked into the benchmark
// executable, which is built with --export-dynamic, these definitions of malloc & co. are the
// ones the dynamic linker binds every call in the process to (the Swift runtime's
// swift_slowAlloc included). They count, then forward to glibc's own entry points
// (__libc_malloc & co., which glibc exports for exactly this kind of wrapper). free is not
// wrapped: the memory still comes from glibc's allocator.
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static long allocations;

long bench_allocation_count(void) { return allocations; }

void *malloc(size_t size) { allocations++; return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { allocations++; return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { allocations++; return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { allocations++; return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { allocations++; return __libc_memalign(alignment, size); }

int posix_memalign(void **result, size_t alignment, size_t size) {
    allocations++;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
