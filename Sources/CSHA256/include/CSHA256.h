#ifndef CSHA256_H
#define CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// Whether this processor has the SHA-256 instructions the functions below use (x86-64 SHA
/// extensions with SSSE3 and SSE4.1); 0 elsewhere, and on every other architecture.
int csha256_hardware_available(void);

/// Runs the SHA-256 compression of `blocks` 64-byte blocks at `data` into `state` (the eight working
/// words, in order) with those instructions. Only call it when csha256_hardware_available() is 1.
void csha256_hardware_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
