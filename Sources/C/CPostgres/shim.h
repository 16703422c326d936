// libpq, PostgreSQL's client library (Debian libpq-dev).
#ifndef BANDKIT_CPOSTGRES_SHIM_H
#define BANDKIT_CPOSTGRES_SHIM_H
#include <postgresql/libpq-fe.h>
#endif
