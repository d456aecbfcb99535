// sync_file_range(2), declared by glibc's <fcntl.h> only under _GNU_SOURCE.
#define _GNU_SOURCE 1
#include <fcntl.h>

/// Starts writing `length` bytes of `descriptor` from `offset` to disk, without waiting.
static inline int sluice_start_writeback(int descriptor, long long offset, long long length) {
    return sync_file_range(descriptor, offset, length, SYNC_FILE_RANGE_WRITE);
}
