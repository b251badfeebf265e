/* libFuzzer target for the response parser.
 *
 * Input: byte 0 picks a split pattern and which responses answer HEAD; the
 * rest is the response stream. The parser must never read out of bounds, must
 * never claim more bytes than it was given, and must give the same answer
 * whether the stream comes whole, cut at pseudo-random places or byte by byte. */
#include "replay.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t ctl = data[0];
    const char *stream = (const char *)data + 1;
    size_t len = size - 1;
    char mask[9];
    for (int i = 0; i < 8; i++) mask[i] = (ctl >> i) & 1 ? 'H' : '.';
    mask[8] = 0;
    static const char needle[] = "ok";
    uint32_t fail[2];
    body_expect e;
    body_expect_init(&e, needle, 2, fail);
    int eof = ctl & 0x80;

    replay_result whole, other;
    replay(stream, len, NULL, 0, mask, &e, eof, &whole);
    if (whole.invariant_broken) abort();

    size_t *cuts = malloc((len + 1) * sizeof *cuts);
    uint32_t x = 2166136261u ^ (uint32_t)len;
    size_t n = 0, pos = 0;
    while (pos < len) {
        x = x * 1103515245u + 12345u;
        pos += 1 + (x >> 16) % 7;
        cuts[n++] = pos;
    }
    replay(stream, len, cuts, n, mask, &e, eof, &other);
    if (other.invariant_broken || !replay_equal(&whole, &other)) {
        fprintf(stderr, "split changed the result\n");
        abort();
    }
    if (len <= 4096) {
        for (size_t i = 0; i <= len; i++) cuts[i] = i;
        replay(stream, len, cuts, len + 1, mask, &e, eof, &other);
        if (other.invariant_broken || !replay_equal(&whole, &other)) {
            fprintf(stderr, "byte-by-byte changed the result\n");
            abort();
        }
    }
    free(cuts);
    return 0;
}
