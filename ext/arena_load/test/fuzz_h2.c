/* Random HTTP/2 frames into the session (h2.c), for a bounded time:
 *   fuzz_h2 [SECONDS] [SEED]
 * Frames are built from a valid server answer, then mutated (bytes flipped,
 * lengths and types changed, frames cut, repeated, reordered). Invariants: no
 * memory error (ASan), every stream ends at most once, a result's kind is a
 * known one, and a connection error is a known kind. Aborts when broken. */
#include "h2.h"
#include "stats.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (uint32_t)(rng % n) : 0;
}

static int ended[64];

static void on_stream(void *ud, int32_t stream, int what, int status, int matched, int kind)
{
    (void)ud, (void)matched;
    if (stream <= 0 || stream >= 64 || ended[stream]++) abort();
    if (what == H2_RESPONSE && (status < 200 || status > 999)) abort();
    if (what == H2_ERROR && (kind < 0 || kind >= ERR_KINDS)) abort();
}

static const h2_hooks hooks = {on_stream};

/* A valid answer to streams 1, 3, 5: SETTINGS, HEADERS (:status 200), DATA,
 * plus PING, WINDOW_UPDATE, RST_STREAM and GOAWAY to mutate. */
static const uint8_t seed_frames[] = {
    0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100,       /* SETTINGS max streams 100 */
    0, 0, 1, 1, 4, 0, 0, 0, 1, 0x88,                     /* HEADERS 1 :status 200 */
    0, 0, 5, 0, 1, 0, 0, 0, 1, 'h', 'e', 'l', 'l', 'o',  /* DATA 1 end */
    0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8,   /* PING */
    0, 0, 4, 8, 0, 0, 0, 0, 0, 0, 1, 0, 0,               /* WINDOW_UPDATE */
    0, 0, 1, 1, 5, 0, 0, 0, 3, 0x89,                     /* HEADERS 3 :status 204 end */
    0, 0, 4, 3, 0, 0, 0, 0, 5, 0, 0, 0, 2,               /* RST_STREAM 5 */
    0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0,   /* GOAWAY last 5 */
};

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 5;
    rng = argc > 2 ? strtoull(argv[2], NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 1;
    uint64_t seed = rng;
    static const char http1[] = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    uint32_t fail[4];
    body_expect e;
    body_expect_init(&e, "ell", 3, fail);
    h2_req req;
    if (h2_req_from_http1(&req, http1, sizeof http1 - 1, "http", &e) < 0) abort();
    uint8_t buf[4096];
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long long runs = 0;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > seconds) break;
        memset(ended, 0, sizeof ended);
        size_t n = 0;
        int pieces = 1 + (int)rnd(6);
        for (int p = 0; p < pieces; p++) {
            size_t from = rnd(sizeof seed_frames), len = rnd((uint32_t)(sizeof seed_frames - from) + 1);
            if (rnd(3) == 0) from = 0, len = sizeof seed_frames;
            if (n + len > sizeof buf) break;
            memcpy(buf + n, seed_frames + from, len);
            n += len;
        }
        for (int m = (int)rnd(8); m > 0 && n; m--) {
            size_t at = rnd((uint32_t)n);
            switch (rnd(3)) {
            case 0: buf[at] ^= (uint8_t)(1u << rnd(8)); break;
            case 1: buf[at] = (uint8_t)rnd(256); break;
            default: buf[at] = (uint8_t)"\x00\x01\x03\x04\x07\x08\x09\xff"[rnd(8)]; break;
            }
        }
        h2sess_t *h = h2s_new(&hooks, NULL, rnd(2) ? 65535 : (1u << 24));
        for (int s = 0; s < 3; s++) h2s_submit(h, &req);
        const uint8_t *out;
        size_t o;
        while ((o = h2s_pending(h, &out)) > 0) h2s_sent(h, o);
        /* fed in random cuts, as reads would split them */
        size_t off = 0;
        while (off < n) {
            size_t cut = 1 + rnd((uint32_t)(n - off));
            h2s_recv(h, buf + off, cut);
            while ((o = h2s_pending(h, &out)) > 0) h2s_sent(h, o);
            int k = h2s_error(h);
            if (k >= ERR_KINDS) abort();
            if (k >= 0) break;
            off += cut;
        }
        h2s_free(h);
        runs++;
    }
    h2_req_free(&req);
    printf("fuzz_h2: %llu inputs in %.0fs (seed %llu), no invariant broken\n", runs, seconds, (unsigned long long)seed);
    return 0;
}
