#ifndef CFILESWAP_H
#define CFILESWAP_H

/// Atomically exchanges the directory entries `a` and `b` (both must exist).
/// Linux: renameat2(RENAME_EXCHANGE); macOS: renamex_np(RENAME_SWAP).
/// Returns 0 on success, else -1 with errno set (ENOSYS/EINVAL/ENOTSUP where the platform or
/// file system cannot swap; callers then fall back to two renames).
int cfileswap_exchange(const char *a, const char *b);

#endif
