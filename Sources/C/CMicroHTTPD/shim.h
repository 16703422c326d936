// libmicrohttpd (Debian libmicrohttpd-dev): the dashboard's HTTP server (HealthHTTP).
#ifndef BANDKIT_CMICROHTTPD_SHIM_H
#define BANDKIT_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon and MHD_get_connection_info are variadic; Swift cannot call them directly.
// No listening socket of its own: HealthHTTP accepts, checks the request head, and hands the
// connection over with MHD_add_connection (MHD_USE_ITC wakes the library for it). One thread per
// connection (a slow or streaming client occupies only its own thread), poll() instead of select()
// (no FD_SETSIZE limit), bounded memory per connection, a connection limit (a backstop: HealthHTTP
// counts and answers 503 first), an idle timeout, and a notification when a connection closes.
static inline struct MHD_Daemon *bandkit_mhd_start(MHD_AccessHandlerCallback handler, void *context,
                                                   unsigned int connection_limit,
                                                   unsigned int timeout_seconds,
                                                   size_t memory_limit,
                                                   MHD_NotifyConnectionCallback notify, void *notify_context) {
    return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL
                                | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC,
                            0, NULL, NULL, handler, context,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
                            MHD_OPTION_END);
}

static inline int bandkit_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

// Linux calls glibc declares only under _GNU_SOURCE, which Swift's Glibc module is built without.
extern int accept4(int socket, struct sockaddr *address, socklen_t *length, int flags);
extern int pipe2(int descriptors[2], int flags);

/// accept(2) of a socket that is non-blocking and closed on exec.
static inline int bandkit_accept(int listener, struct sockaddr *address, socklen_t *length) {
    return accept4(listener, address, length, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

/// A non-blocking pipe closed on exec (the acceptor's stop signal).
static inline int bandkit_pipe(int descriptors[2]) { return pipe2(descriptors, 02000000 | 04000); }

/// A non-blocking listening TCP socket closed on exec.
static inline int bandkit_stream_socket(void) { return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0); }

/// poll(2)'s POLLRDHUP (the peer closed its side), and the recv flags, as plain integers.
static inline short bandkit_pollrdhup(void) { return 0x2000; }
static inline int bandkit_msg_peek_nowait(void) { return MSG_PEEK | MSG_DONTWAIT; }
static inline int bandkit_msg_nowait(void) { return MSG_DONTWAIT; }
static inline int bandkit_msg_send_nowait(void) { return MSG_NOSIGNAL | MSG_DONTWAIT; }

// The library's enums are declared with attributes Swift does not import as constants.
static inline enum MHD_Result bandkit_mhd_yes(void) { return MHD_YES; }
static inline enum MHD_Result bandkit_mhd_no(void) { return MHD_NO; }
static inline enum MHD_ConnectionNotificationCode bandkit_mhd_notify_closed(void) { return MHD_CONNECTION_NOTIFY_CLOSED; }
static inline enum MHD_ConnectionNotificationCode bandkit_mhd_notify_started(void) { return MHD_CONNECTION_NOTIFY_STARTED; }
static inline enum MHD_ValueKind bandkit_mhd_header_kind(void) { return MHD_HEADER_KIND; }
static inline enum MHD_ValueKind bandkit_mhd_argument_kind(void) { return MHD_GET_ARGUMENT_KIND; }
static inline enum MHD_ResponseMemoryMode bandkit_mhd_must_copy(void) { return MHD_RESPMEM_MUST_COPY; }
static inline uint64_t bandkit_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
static inline ssize_t bandkit_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
#endif
