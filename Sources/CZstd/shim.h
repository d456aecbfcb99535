// zstd (frames, streaming decompression), from the Debian package libzstd-dev (tests/install-system-deps.sh installs it).
#include <zstd.h>
