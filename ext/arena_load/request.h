/* The requests to send, built once before the run: their bytes never change. */
#ifndef ARENA_REQUEST_H
#define ARENA_REQUEST_H

#include "options.h"
#include "parser.h"
#include "url.h"

#include <stdint.h>

typedef struct {
    char *bytes;
    size_t len;
    int is_head;
    int expect_status;        /* a code, EXPECT_ANY or EXPECT_2XX_3XX */
    body_expect expect;       /* len 0: none */
    uint64_t cum_weight;      /* running total of weights up to this one */
    uint32_t group;           /* the request of the mix it belongs to (its name) */
    size_t ts_off;            /* --request-start: where its timestamp digits go (0: none) */
} request_t;

/* X-Request-Start: t=<microseconds since the epoch>, 16 digits. */
#define REQUEST_TS_DIGITS 16

/* A mix reports latency per request: per name, else per line; at most
 * REQ_MAX_GROUPS of them (beyond, none: ngroups is 0). */
#define REQ_MAX_GROUPS 256

typedef struct {
    request_t *reqs;
    size_t n;
    uint64_t total_weight;
    size_t ngroups;      /* 0: a single request, or too many to report apart */
    char **group_names;  /* a line's name, else "METHOD path" */
    uint64_t *group_weight;
} request_set;

int requests_build(request_set *rs, const options_t *o, const target_t *t, char *err, size_t errlen);
void requests_free(request_set *rs);

static inline int status_ok(int expect, int status)
{
    if (expect == EXPECT_ANY) return 1;
    if (expect == EXPECT_2XX_3XX) return status >= 200 && status < 400;
    return status == expect;
}

/* Weighted choice; rng is a per-thread xorshift state. */
static inline uint32_t request_pick(const request_set *rs, uint64_t *rng)
{
    if (rs->n == 1) return 0;
    uint64_t x = *rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *rng = x;
    uint64_t r = x % rs->total_weight;
    size_t lo = 0, hi = rs->n - 1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rs->reqs[mid].cum_weight > r) hi = mid;
        else lo = mid + 1;
    }
    return (uint32_t)lo;
}

#endif
