// snappy's C interface (raw snappy blocks), from the Debian package libsnappy-dev (tests/install-system-deps.sh installs it).
#include <snappy-c.h>
