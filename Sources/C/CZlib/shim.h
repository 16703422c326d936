// zlib (Debian zlib1g-dev): raw DEFLATE for the members of an Apple Health export.zip.
#ifndef BANDKIT_CZLIB_SHIM_H
#define BANDKIT_CZLIB_SHIM_H
#include <zlib.h>

// inflateInit2 is a macro passing the library version and the stream's size; Swift cannot import it.
// windowBits -15: a raw DEFLATE stream without zlib header, as zip members store it.
static inline int bandkit_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -15);
}
#endif
