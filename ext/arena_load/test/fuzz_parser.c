/* libFuzzer target for the response parser.
 *
 * Input: byte 0 picks which responses answer HEAD and whether the stream ends
 * in EOF, byte 1 how the stream is cut (byte by byte, or pieces of up to 2,
 * 3, 7, 23, 64, 256 or 4096 bytes, at places it seeds); the rest is the
 * response stream. The parser must never read out of bounds, never claim
 * more bytes than it was given, and give the same answer whether the stream
 * comes whole or cut.
 *
 * Linear in the input: two replays (whole, and the one split byte 1 asks
 * for), each a single pass with one allocation; the old harness replayed
 * every input whole, at 1-7 byte cuts and byte by byte. */
#include "replay.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const replay_result *whole, const replay_result *other, const char *how)
{
    if (other->invariant_broken || !replay_equal(whole, other)) {
        fprintf(stderr, "%s changed the result\n", how);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    uint8_t ctl = data[0];
    uint32_t x = 2166136261u ^ data[1];
    const char *stream = (const char *)data + 2;
    size_t len = size - 2;
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

    /* One split, its piece size from byte 1: 0 is byte by byte, then wider
     * pieces; the fuzzer explores the cuts through that byte. */
    static const uint32_t widest[8] = {1, 2, 3, 7, 23, 64, 256, 4096};
    uint32_t top = widest[data[1] & 7];
    size_t *cuts = malloc((len + 1) * sizeof *cuts);
    size_t n = 0, pos = 0;
    while (pos < len) {
        x = x * 1103515245u + 12345u;
        pos += 1 + (top > 1 ? (x >> 16) % top : 0);
        cuts[n++] = pos;
    }
    replay(stream, len, cuts, n, mask, &e, eof, &other);
    check(&whole, &other, top == 1 ? "byte-by-byte" : "a split");
    free(cuts);
    return 0;
}
