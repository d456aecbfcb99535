// lz4's frame API (LZ4F_*), from the Debian package liblz4-dev (tests/install-system-deps.sh installs it).
#include <lz4frame.h>
