#if defined(__linux__)
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <errno.h>
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#elif defined(__APPLE__)
#include <stdio.h>
#include <errno.h>
#else
#include <errno.h>
#endif

#include "CFileSwap.h"

int cfileswap_exchange(const char *a, const char *b) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
#elif defined(__APPLE__)
    return renamex_np(a, b, RENAME_SWAP);
#else
    (void)a; (void)b;
    errno = ENOSYS;
    return -1;
#endif
}
