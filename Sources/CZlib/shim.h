// zlib (gzip streams), from the Debian package zlib1g-dev (tests/install-system-deps.sh installs it).
#include <zlib.h>
