// Expat, the streaming XML parser (Debian libexpat1-dev): AppleHealth's export.xml reader.
#ifndef BANDKIT_CEXPAT_SHIM_H
#define BANDKIT_CEXPAT_SHIM_H
#include <expat.h>
#endif
