// libmicrohttpd (Debian libmicrohttpd-dev): the dashboard's HTTP server (HealthHTTP).
#ifndef BANDKIT_CMICROHTTPD_SHIM_H
#define BANDKIT_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon and MHD_get_daemon_info are variadic; Swift cannot call them directly.
// One thread per connection (a slow or streaming client occupies only its own thread), poll()
// instead of select() (no FD_SETSIZE limit), bounded memory per connection (headers beyond it
// are refused by the library), a connection limit in total and per client address, and an idle
// timeout (a client that stops sending is dropped).
static inline struct MHD_Daemon *bandkit_mhd_start(const struct sockaddr *address,
                                                   MHD_AccessHandlerCallback handler, void *context,
                                                   unsigned int connection_limit,
                                                   unsigned int per_address_limit,
                                                   unsigned int timeout_seconds,
                                                   size_t memory_limit) {
    return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL,
                            0, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_END);
}

static inline uint16_t bandkit_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

// The library's enums are declared with attributes Swift does not import as constants.
static inline enum MHD_Result bandkit_mhd_yes(void) { return MHD_YES; }
static inline enum MHD_Result bandkit_mhd_no(void) { return MHD_NO; }
static inline enum MHD_ValueKind bandkit_mhd_header_kind(void) { return MHD_HEADER_KIND; }
static inline enum MHD_ValueKind bandkit_mhd_argument_kind(void) { return MHD_GET_ARGUMENT_KIND; }
static inline enum MHD_ResponseMemoryMode bandkit_mhd_must_copy(void) { return MHD_RESPMEM_MUST_COPY; }
static inline uint64_t bandkit_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
static inline ssize_t bandkit_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
#endif
