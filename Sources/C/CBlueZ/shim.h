// libbluetooth (Debian libbluetooth-dev): the kernel's Bluetooth socket ABI — struct layouts
// (sockaddr_hci, sockaddr_l2, bt_security, l2cap_options, hci_filter) and constants.
// Builds without Bluetooth in the running kernel: only headers and libbluetooth.so are needed.
// The management API has no header in libbluetooth-dev; BandBlueZ defines its opcodes itself
// (BlueZ doc/mgmt-api.txt).
#ifndef BANDKIT_CBLUEZ_SHIM_H
#define BANDKIT_CBLUEZ_SHIM_H
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>

// Macros Swift cannot import.
static inline int bandkit_sol_bluetooth(void) { return SOL_BLUETOOTH; }
static inline int bandkit_bt_security(void) { return BT_SECURITY; }
static inline int bandkit_l2cap_options(void) { return L2CAP_OPTIONS; }
static inline int bandkit_bt_rcvmtu(void) { return BT_RCVMTU; }
static inline int bandkit_bt_sndmtu(void) { return BT_SNDMTU; }
static inline int bandkit_sol_l2cap(void) { return SOL_L2CAP; }
static inline int bandkit_sol_hci(void) { return SOL_HCI; }
static inline int bandkit_hci_filter(void) { return HCI_FILTER; }
static inline int bandkit_af_bluetooth(void) { return AF_BLUETOOTH; }
static inline int bandkit_btproto_l2cap(void) { return BTPROTO_L2CAP; }
static inline int bandkit_btproto_hci(void) { return BTPROTO_HCI; }
#endif
