/* Log-linear histogram of non-negative integers (HdrHistogram's idea).
 *
 * Values below 2^sub_bits are kept exactly; above, every power of two is cut
 * into 2^(sub_bits-1) equal buckets, so the relative width of a bucket is at
 * most 2^-(sub_bits-1). sub_bits 11 gives ~3 significant digits (0.1%).
 * Memory is fixed at init; recording and merging never allocate.
 */
#ifndef ARENA_HISTOGRAM_H
#define ARENA_HISTOGRAM_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    int sub_bits;
    uint64_t highest;     /* larger values go in the last bucket (min/max/sum stay exact) */
    size_t ncounts;
    uint64_t *counts;
    uint64_t total;
    uint64_t min, max;
    uint64_t sum;
    double sum_sq;
} hist_t;

/* 0 on success, -1 when out of memory. */
int hist_init(hist_t *h, int sub_bits, uint64_t highest);
void hist_free(hist_t *h);
void hist_clear(hist_t *h);
void hist_record(hist_t *h, uint64_t v);
/* dst and src must have been initialised with the same parameters. */
void hist_merge(hist_t *dst, const hist_t *src);
/* Value at percentile pct (0..100, to 1e-4): the middle of the bucket holding
 * the rank-th smallest value, rank = ceil(pct * 10^4 * total / 10^6) in
 * integers, clamped to [min, max]; the largest rank gives max exactly. 0 if
 * empty. */
uint64_t hist_percentile(const hist_t *h, double pct);
double hist_mean(const hist_t *h);
double hist_stdev(const hist_t *h);
/* The one latency object of the engine's JSON (report.c, merge.c):
 * {"count","min","mean","stdev","max","p50","p75","p90","p99","p999","p9999"}. */
void hist_write_latency_json(FILE *out, const hist_t *h);

#endif
