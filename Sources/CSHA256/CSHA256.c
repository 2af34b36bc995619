// SHA-256's compression with the x86-64 SHA extensions, for the runtime off Apple platforms (where
// CryptoKit's is used): the portable Swift one took a tenth of a disk write. FIPS 180-4; the message
// schedule four words at a time with SHA256MSG1/SHA256MSG2, two rounds per SHA256RNDS2.
#include "CSHA256.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

int csha256_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const int ssse3 = (ecx >> 9) & 1, sse41 = (ecx >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    const int sha = (ebx >> 29) & 1;
    return ssse3 && sse41 && sha;
}

static const uint32_t constants[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

__attribute__((target("sha,ssse3,sse4.1")))
void csha256_hardware_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    // Big-endian words from the message's bytes.
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // The state as the instructions hold it: ABEF and CDGH.
    __m128i low = _mm_loadu_si128((const __m128i *)&state[0]);   // D C B A
    __m128i high = _mm_loadu_si128((const __m128i *)&state[4]);  // H G F E
    low = _mm_shuffle_epi32(low, 0xB1);                           // C D A B
    high = _mm_shuffle_epi32(high, 0x1B);                         // E F G H
    __m128i abef = _mm_alignr_epi8(low, high, 8);                 // A B E F
    __m128i cdgh = _mm_blend_epi16(high, low, 0xF0);              // C D G H

    for (; blocks > 0; blocks--, data += 64) {
        const __m128i savedABEF = abef, savedCDGH = cdgh;
        __m128i words[4];  // the last 16 words of the schedule, four to a register, oldest first
        for (int group = 0; group < 16; group++) {
            __m128i next;
            if (group < 4) {
                next = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * group)), byteSwap);
            } else {
                // W[t..t+3] from W[t-16..t-13], W[t-15..t-12], W[t-7..t-4] and W[t-2..t-1].
                const __m128i w16 = words[group % 4], w12 = words[(group + 1) % 4];
                const __m128i w8 = words[(group + 2) % 4], w4 = words[(group + 3) % 4];
                next = _mm_sha256msg1_epu32(w16, w12);
                next = _mm_add_epi32(next, _mm_alignr_epi8(w4, w8, 4));
                next = _mm_sha256msg2_epu32(next, w4);
            }
            words[group % 4] = next;
            __m128i message = _mm_add_epi32(next, _mm_load_si128((const __m128i *)&constants[4 * group]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message);
            message = _mm_shuffle_epi32(message, 0x0E);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, message);
        }
        abef = _mm_add_epi32(abef, savedABEF);
        cdgh = _mm_add_epi32(cdgh, savedCDGH);
    }

    // Back to A..H.
    low = _mm_shuffle_epi32(abef, 0x1B);              // F E B A
    high = _mm_shuffle_epi32(cdgh, 0xB1);             // D C H G
    abef = _mm_blend_epi16(low, high, 0xF0);          // D C B A
    cdgh = _mm_alignr_epi8(high, low, 8);             // H G F E
    _mm_storeu_si128((__m128i *)&state[0], abef);
    _mm_storeu_si128((__m128i *)&state[4], cdgh);
}

#else

int csha256_hardware_available(void) { return 0; }

void csha256_hardware_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    (void)state;
    (void)data;
    (void)blocks;
}

#endif
