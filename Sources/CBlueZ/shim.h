// libbluetooth (Debian libbluetooth-dev): HCI, L2CAP and management-socket declarations.
// Builds without Bluetooth in the running kernel: only headers and libbluetooth.so are needed.
#ifndef BANDKIT_CBLUEZ_SHIM_H
#define BANDKIT_CBLUEZ_SHIM_H
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>
#include <bluetooth/mgmt.h>

// Macros Swift cannot import.
static inline int bandkit_sol_bluetooth(void) { return SOL_BLUETOOTH; }
static inline int bandkit_bt_security(void) { return BT_SECURITY; }
static inline int bandkit_l2cap_options(void) { return L2CAP_OPTIONS; }
static inline int bandkit_bt_rcvmtu(void) { return BT_RCVMTU; }
static inline int bandkit_bt_sndmtu(void) { return BT_SNDMTU; }
#endif
