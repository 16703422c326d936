/* The Debian 12 (6.1) kernel's `kernel BUG at lib/list_debug.c` in hci_chan_del, on demand:
 *
 *   hci-chan-del ADAPTER_ADDRESS PEER ABSENT CANCELS
 *
 * 1. an LE ATT socket (L2CAP CID 4) connects to PEER, an advertising device, and stays open;
 * 2. CANCELS times, another ATT socket connects to ABSENT, an address nobody advertises, and is
 *    closed after 2 s while that LE connection is still pending (the kernel was scanning for it);
 * 3. the first socket is closed: on 6.1.0-57 (6.1.192) its close corrupts the connection's channel
 *    list, the kernel logs "list_del corruption" and "kernel BUG at lib/list_debug.c:53" with
 *    hci_chan_del ← l2cap_chan_put ← l2cap_sock_release, this process dies with SIGSEGV (139),
 *    and every later LE connect on the adapter fails with EBUSY.
 *
 * This is what a reader that retries an absent device with connect() while it holds another
 * device's link does. `band gateway` over BlueZ never calls connect(): the kernel's auto-connect
 * list (mgmt Add Device) connects devices when they advertise, and the gateway accepts the ATT
 * channel each link hands to its listening socket, so none of its sockets ever has an LE
 * connection pending to cancel (docs/real-hardware.md). */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/l2cap.h>

static int att_socket(const char *adapter, int flags) {
    int s = socket(AF_BLUETOOTH, SOCK_SEQPACKET | flags, BTPROTO_L2CAP);
    struct sockaddr_l2 local = { .l2_family = AF_BLUETOOTH, .l2_cid = htobs(4), .l2_bdaddr_type = BDADDR_LE_PUBLIC };
    str2ba(adapter, &local.l2_bdaddr);
    if (s < 0 || bind(s, (struct sockaddr *)&local, sizeof local) < 0) { perror("socket/bind"); exit(1); }
    return s;
}

static int att_connect(int s, const char *peer) {
    struct sockaddr_l2 remote = { .l2_family = AF_BLUETOOTH, .l2_cid = htobs(4), .l2_bdaddr_type = BDADDR_LE_PUBLIC };
    str2ba(peer, &remote.l2_bdaddr);
    return connect(s, (struct sockaddr *)&remote, sizeof remote);
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s ADAPTER_ADDRESS PEER ABSENT CANCELS\n", argv[0]); return 64; }
    int held = att_socket(argv[1], 0);
    if (att_connect(held, argv[2]) < 0) { perror("connect PEER"); return 1; }
    printf("held a link to %s\n", argv[2]);
    for (int i = 0; i < atoi(argv[4]); i++) {
        int s = att_socket(argv[1], SOCK_NONBLOCK);
        att_connect(s, argv[3]);
        struct pollfd p = { .fd = s, .events = POLLOUT };
        int ready = poll(&p, 1, 2000);
        printf("connect to %s %s; closing\n", argv[3], ready > 0 ? "ended" : "still pending");
        fflush(stdout);
        close(s);
    }
    close(held);
    printf("closed the held link\n");
    return 0;
}
