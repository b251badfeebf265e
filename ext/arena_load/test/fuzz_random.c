/* Random-input driver for fuzz_parser.c when libFuzzer is not at hand:
 * mutates the sample responses for a bounded time.
 *   fuzz_random [SECONDS] [SEED]
 * Exits non-zero (through abort) on a broken invariant. */
#include "samples.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (uint32_t)(rng % n) : 0;
}

static const char *const tokens[] = {"\r\n", "\n", "\r", ":", " ", "0", "F", "ffffffffffffffffff", "chunked",
                                     "Content-Length: ", "Transfer-Encoding: chunked\r\n", "Connection: close\r\n",
                                     "HTTP/1.1 ", "HTTP/1.0 200 OK\r\n", "\r\n\r\n", ";ext=1", "0\r\n\r\n", "100 ",
                                     "204", "9999999999999999999999"};

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 5;
    rng = argc > 2 ? strtoull(argv[2], NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 1;
    uint64_t seed = rng;
    size_t cap = 1 << 16;
    uint8_t *buf = malloc(cap);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long long runs = 0;
    for (;;) {
        if ((runs & 255) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 >= seconds) break;
        }
        /* Start from one to three samples back to back. */
        size_t len = 2;
        buf[0] = (uint8_t)rnd(256);
        buf[1] = (uint8_t)rnd(256); /* where the stream is cut */
        int parts = 1 + (int)rnd(3);
        for (int i = 0; i < parts; i++) {
            const char *s = samples[rnd(NSAMPLES)].bytes;
            size_t n = strlen(s);
            if (len + n < cap / 2) {
                memcpy(buf + len, s, n);
                len += n;
            }
        }
        int muts = (int)rnd(6);
        for (int m = 0; m < muts && len > 1; m++) {
            size_t at = 1 + rnd((uint32_t)(len - 1));
            switch (rnd(5)) {
            case 0: buf[at] ^= (uint8_t)(1u << rnd(8)); break;
            case 1: buf[at] = (uint8_t)rnd(256); break;
            case 2:
                memmove(buf + at, buf + at + 1, len - at - 1);
                len--;
                break;
            case 3: {
                const char *tok = tokens[rnd(sizeof tokens / sizeof tokens[0])];
                size_t n = strlen(tok);
                if (len + n < cap) {
                    memmove(buf + at + n, buf + at, len - at);
                    memcpy(buf + at, tok, n);
                    len += n;
                }
                break;
            }
            case 4: len = at; break; /* truncate */
            }
        }
        LLVMFuzzerTestOneInput(buf, len);
        runs++;
    }
    free(buf);
    fprintf(stderr, "fuzz_random: %llu inputs in %.0fs (seed %llu), no invariant broken\n", runs, seconds,
            (unsigned long long)seed);
    return 0;
}
