/* Percentiles within 0.1% of the exact value; merging is exact. */
#include "check.h"
#include "histogram.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;

static double uniform01(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double pct)
{
    /* pct has at most two decimals here: count in ten-thousandths. */
    uint64_t per10k = (uint64_t)(pct * 100 + 0.5);
    size_t rank = (size_t)((per10k * n + 9999) / 10000);
    if (rank < 1) rank = 1;
    return sorted[rank - 1];
}

static void check_distribution_in(const char *name, uint64_t *v, size_t n, uint64_t highest)
{
    hist_t h;
    hist_init(&h, LAT_SUB_BITS, highest);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        hist_record(&h, v[i]);
        sum += (double)v[i];
    }
    qsort(v, n, sizeof *v, cmp_u64);
    static const double pcts[] = {1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100};
    for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
        uint64_t exact = exact_percentile(v, n, pcts[i]);
        uint64_t got = hist_percentile(&h, pcts[i]);
        double rel = exact ? fabs((double)got - (double)exact) / (double)exact : (double)got;
        CHECK(rel <= 0.001, "%s p%g: got %llu, exact %llu (%.4f%%)", name, pcts[i], (unsigned long long)got,
              (unsigned long long)exact, rel * 100);
    }
    CHECK(h.min == v[0] && h.max == v[n - 1], "%s: min/max exact", name);
    CHECK(fabs(hist_mean(&h) - sum / (double)n) < 1e-6 * (sum / (double)n), "%s: mean exact", name);
    double var = 0, mean = sum / (double)n;
    for (size_t i = 0; i < n; i++) var += ((double)v[i] - mean) * ((double)v[i] - mean);
    double sd = sqrt(var / (double)(n - 1));
    CHECK(fabs(hist_stdev(&h) - sd) <= 1e-6 * sd + 1e-9, "%s: stdev %f vs %f", name, hist_stdev(&h), sd);
    hist_free(&h);
}

static void check_merge(void)
{
    hist_t a, b, one;
    hist_init(&a, 11, 100000000ull);
    hist_init(&b, 11, 100000000ull);
    hist_init(&one, 11, 100000000ull);
    for (int i = 0; i < 200000; i++) {
        uint64_t v = (uint64_t)(-log(1 - uniform01()) * 5000) + (i % 7 == 0 ? 300000 : 0);
        hist_record(i % 3 ? &a : &b, v);
        hist_record(&one, v);
    }
    hist_merge(&a, &b);
    CHECK(memcmp(a.counts, one.counts, a.ncounts * sizeof *a.counts) == 0, "merged counts equal one histogram");
    CHECK(a.total == one.total && a.min == one.min && a.max == one.max && a.sum == one.sum, "merged totals");
    CHECK(fabs(a.sum_sq - one.sum_sq) <= 1e-9 * one.sum_sq, "merged sum of squares");
    int same = 1;
    for (double p = 0.5; p <= 100; p += 0.5) same &= hist_percentile(&a, p) == hist_percentile(&one, p);
    CHECK(same, "merged percentiles equal");
    hist_free(&a);
    hist_free(&b);
    hist_free(&one);
}

static void check_edges(void)
{
    hist_t h;
    hist_init(&h, 11, 100000000ull);
    CHECK(hist_percentile(&h, 50) == 0 && hist_mean(&h) == 0 && hist_stdev(&h) == 0, "empty histogram");
    hist_record(&h, 0);
    CHECK(hist_percentile(&h, 100) == 0 && h.min == 0, "zero recorded");
    hist_record(&h, 500000000000ull);
    CHECK(h.max == 500000000000ull && hist_percentile(&h, 100) == 500000000000ull, "max beyond the highest is exact");
    CHECK(hist_mean(&h) == 250000000000.0, "mean beyond the highest is exact (%f)", hist_mean(&h));
    hist_clear(&h);
    for (uint64_t v = 1; v < 2048; v++) hist_record(&h, v);
    CHECK(hist_percentile(&h, 50) == 1024, "small values are exact (%llu)", (unsigned long long)hist_percentile(&h, 50));
    CHECK(h.ncounts * sizeof *h.counts < 200 * 1024, "constant memory: %zu bytes", h.ncounts * sizeof *h.counts);
    hist_free(&h);
}

/* Ranks at totals that are multiples of 1000, where floating-point ceil of
 * 0.999 * n gives one too many. Values 1..n recorded once each (exact below
 * 2048), so the p-th percentile is its rank itself; expected ranks are
 * written out, not computed. */
static void check_ranks(void)
{
    static const struct {
        uint64_t n;
        double pct;
        uint64_t want;
    } cases[] = {
        {1000, 99.9, 999}, {2000, 99.9, 1998}, {1000, 99, 990}, {1000, 50, 500}, {1000, 99.99, 1000},
        {1000, 100, 1000}, {1001, 99.9, 1000}, {1999, 99.9, 1998}, {100, 99, 99}, {10, 90, 9}, {3, 50, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hist_t h;
        hist_init(&h, 11, 100000000ull);
        for (uint64_t v = 1; v <= cases[i].n; v++) hist_record(&h, v);
        uint64_t got = hist_percentile(&h, cases[i].pct);
        CHECK(got == cases[i].want, "n %llu p%g: got %llu, want %llu", (unsigned long long)cases[i].n, cases[i].pct,
              (unsigned long long)got, (unsigned long long)cases[i].want);
        hist_free(&h);
    }
    /* 10,000 samples: p99.99 is rank 9999, not the max. */
    hist_t h;
    hist_init(&h, 11, 100000000ull);
    for (uint64_t v = 1; v <= 10000; v++) hist_record(&h, v < 2000 ? v : 2000 + v / 100);
    CHECK(hist_percentile(&h, 99.99) < h.max, "p99.99 of 10000 is below the max");
    hist_free(&h);
}

static void check_distribution(const char *name, uint64_t *v, size_t n)
{
    check_distribution_in(name, v, n, 100000000ull);
}

int main(void)
{
    check_ranks();
    size_t n = 1000000;
    uint64_t *v = malloc(n * sizeof *v);

    for (size_t i = 0; i < n; i++) v[i] = 1 + (uint64_t)(uniform01() * 10000000); /* 1 us .. 10 s */
    check_distribution("uniform", v, n);

    for (size_t i = 0; i < n; i++) v[i] = 1 + (uint64_t)(-log(1 - uniform01()) * 1000); /* mean 1 ms */
    check_distribution("exponential", v, n);

    for (size_t i = 0; i < n; i++)
        v[i] = uniform01() < 0.9 ? 150 + (uint64_t)(uniform01() * 100) : 400000 + (uint64_t)(uniform01() * 200000);
    check_distribution("bimodal", v, n);

    for (size_t i = 0; i < n; i++) v[i] = (uint64_t)exp(uniform01() * log(1e8)); /* 1 us .. 100 s, log-uniform */
    check_distribution("log-uniform", v, n);

    /* Stalls of 150-250 s (an open-model queue) in the engine's own latency
     * range: read as they are, not clamped to its top (it was 100 s). */
    for (size_t i = 0; i < n; i++) v[i] = 150000000 + (uint64_t)(uniform01() * 100000000);
    check_distribution_in("stalls of 150-250 s", v, n, LAT_HIGHEST_US);

    free(v);
    check_merge();
    check_edges();
    return finish();
}
