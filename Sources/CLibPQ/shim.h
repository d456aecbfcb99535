// libpq's declarations (Debian: libpq-dev), seen by Swift as the CLibPQ module. Only
// SluicePostgresClient imports it, and links nothing: it loads libpq.so.5 when it first connects.
#include <postgresql/libpq-fe.h>
