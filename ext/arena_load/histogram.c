#include "histogram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int bucket_of(const hist_t *h, uint64_t v)
{
    uint64_t mask = ((uint64_t)1 << h->sub_bits) - 1;
    return 64 - h->sub_bits - __builtin_clzll(v | mask);
}

static size_t index_of(const hist_t *h, uint64_t v)
{
    int b = bucket_of(h, v);
    size_t half = (size_t)1 << (h->sub_bits - 1);
    size_t sub = (size_t)(v >> b);
    return ((size_t)(b + 1) << (h->sub_bits - 1)) + sub - half;
}

/* Lowest value and width of the bucket at index i. */
static void bucket_range(const hist_t *h, size_t i, uint64_t *lo, uint64_t *width)
{
    size_t half = (size_t)1 << (h->sub_bits - 1);
    long b = (long)(i >> (h->sub_bits - 1)) - 1;
    uint64_t sub = (i & (half - 1)) + half;
    if (b < 0) {
        sub -= half;
        b = 0;
    }
    *lo = sub << b;
    *width = (uint64_t)1 << b;
}

int hist_init(hist_t *h, int sub_bits, uint64_t highest)
{
    memset(h, 0, sizeof *h);
    h->sub_bits = sub_bits;
    h->highest = highest;
    h->ncounts = index_of(h, highest) + 1;
    h->counts = calloc(h->ncounts, sizeof *h->counts);
    if (!h->counts) return -1;
    h->min = UINT64_MAX;
    return 0;
}

void hist_free(hist_t *h)
{
    free(h->counts);
    h->counts = NULL;
}

void hist_clear(hist_t *h)
{
    memset(h->counts, 0, h->ncounts * sizeof *h->counts);
    h->total = 0;
    h->min = UINT64_MAX;
    h->max = 0;
    h->sum = 0;
    h->sum_sq = 0;
}

void hist_record(hist_t *h, uint64_t v)
{
    /* Only the bucket is clamped: min, max, mean and stdev stay exact for
     * values beyond the highest (a 300 s stall is not reported as 100 s). */
    h->counts[index_of(h, v > h->highest ? h->highest : v)]++;
    h->total++;
    if (v < h->min) h->min = v;
    if (v > h->max) h->max = v;
    h->sum += v;
    h->sum_sq += (double)v * (double)v;
}

void hist_merge(hist_t *dst, const hist_t *src)
{
    if (src->total == 0) return;
    for (size_t i = 0; i < dst->ncounts; i++) dst->counts[i] += src->counts[i];
    dst->total += src->total;
    if (src->min < dst->min) dst->min = src->min;
    if (src->max > dst->max) dst->max = src->max;
    dst->sum += src->sum;
    dst->sum_sq += src->sum_sq;
}

uint64_t hist_percentile(const hist_t *h, double pct)
{
    if (h->total == 0) return 0;
    if (pct > 100) pct = 100;
    if (pct < 0) pct = 0;
    /* The rank in integers (parts per million): ceil(99.9 / 100 * 1000) in
     * floating point is 1000, not 999, because 0.999 is not exact. */
    unsigned __int128 ppm = (unsigned __int128)llround(pct * 10000.0);
    uint64_t rank = (uint64_t)((ppm * h->total + 999999) / 1000000);
    if (rank < 1) rank = 1;
    if (rank >= h->total) return h->max;
    uint64_t seen = 0;
    for (size_t i = 0; i < h->ncounts; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t lo, width;
            bucket_range(h, i, &lo, &width);
            uint64_t v = lo + width / 2;
            if (v < h->min) v = h->min;
            if (v > h->max) v = h->max;
            return v;
        }
    }
    return h->max;
}

double hist_mean(const hist_t *h)
{
    return h->total ? (double)h->sum / (double)h->total : 0.0;
}

double hist_stdev(const hist_t *h)
{
    if (h->total < 2) return 0.0;
    double n = (double)h->total;
    double mean = (double)h->sum / n;
    double var = (h->sum_sq - n * mean * mean) / (n - 1);
    return var > 0 ? sqrt(var) : 0.0;
}

void hist_write_latency_json(FILE *out, const hist_t *h)
{
    fprintf(out,
            "{\"count\":%llu,\"min\":%llu,\"mean\":%.1f,\"stdev\":%.1f,\"max\":%llu,"
            "\"p50\":%llu,\"p75\":%llu,\"p90\":%llu,\"p99\":%llu,\"p999\":%llu,\"p9999\":%llu}",
            (unsigned long long)h->total, (unsigned long long)(h->total ? h->min : 0), hist_mean(h), hist_stdev(h),
            (unsigned long long)h->max, (unsigned long long)hist_percentile(h, 50),
            (unsigned long long)hist_percentile(h, 75), (unsigned long long)hist_percentile(h, 90),
            (unsigned long long)hist_percentile(h, 99), (unsigned long long)hist_percentile(h, 99.9),
            (unsigned long long)hist_percentile(h, 99.99));
}
