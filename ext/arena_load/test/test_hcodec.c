/* The histogram codec is lossless, rejects malformed input, and --merge
 * gives exactly the percentiles of the merged histograms. */
#include "check.h"
#include "hcodec.h"
#include "merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform01(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* Latency-like values: a log-normal body with a long tail. */
static void fill_both(hist_t *h, hist_t *also, size_t n, double median_us)
{
    for (size_t i = 0; i < n; i++) {
        double u = uniform01() + 1e-12, w = uniform01();
        double z = sqrt(-2 * log(u)) * cos(6.283185307179586 * w);
        double v = median_us * exp(0.6 * z);
        if (uniform01() < 0.001) v *= 50;
        hist_record(h, (uint64_t)v);
        if (also) hist_record(also, (uint64_t)v);
    }
}

static void fill(hist_t *h, size_t n, double median_us) { fill_both(h, NULL, n, median_us); }

static char *encode(const hist_t *h)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hcodec_write_json(f, h);
    fclose(f);
    return buf;
}

static int same(const hist_t *a, const hist_t *b)
{
    if (a->sub_bits != b->sub_bits || a->highest != b->highest || a->ncounts != b->ncounts) return 0;
    if (a->total != b->total || a->max != b->max || a->sum != b->sum || a->sum_sq != b->sum_sq) return 0;
    if (a->total && a->min != b->min) return 0;
    return memcmp(a->counts, b->counts, a->ncounts * sizeof *a->counts) == 0;
}

static void roundtrip(int sub_bits, size_t n, double median)
{
    hist_t h, back;
    char err[256];
    hist_init(&h, sub_bits, 100000000ull);
    fill(&h, n, median);
    char *text = encode(&h);
    CHECK(hcodec_read_json(text, strlen(text), &back, err, sizeof err) == 0, "decode: %s", err);
    CHECK(same(&h, &back), "roundtrip of %zu values (sub_bits %d) is not identical", n, sub_bits);
    const double pcts[] = {50, 75, 90, 99, 99.9, 99.99, 100};
    for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++)
        CHECK(hist_percentile(&h, pcts[i]) == hist_percentile(&back, pcts[i]), "p%g differs", pcts[i]);
    CHECK(hist_stdev(&h) == hist_stdev(&back), "stdev differs");
    hist_free(&back);
    hist_free(&h);
    free(text);
}

static void test_roundtrip(void)
{
    roundtrip(11, 0, 1000);
    roundtrip(11, 1, 1000);
    roundtrip(11, 100000, 800);
    roundtrip(11, 20000, 3e6);
    roundtrip(7, 5000, 500);
    /* the extremes: zero and the highest trackable value */
    hist_t h, back;
    char err[256];
    hist_init(&h, 11, 100000000ull);
    hist_record(&h, 0);
    hist_record(&h, 100000000ull);
    hist_record(&h, 500000000ull);
    char *text = encode(&h);
    CHECK(hcodec_read_json(text, strlen(text), &back, err, sizeof err) == 0, "decode extremes: %s", err);
    CHECK(same(&h, &back), "extremes not identical");
    hist_free(&back);
    hist_free(&h);
    free(text);
}

static void test_compact(void)
{
    hist_t h;
    hist_init(&h, 11, 100000000ull);
    fill(&h, 200000, 1500);
    char *text = encode(&h);
    /* raw, the counts are 8 bytes a bucket; encoded, under 1 byte a bucket */
    CHECK(strlen(text) < h.ncounts, "encoding of 200k values is %zu bytes for %zu buckets", strlen(text), h.ncounts);
    free(text);
    hist_free(&h);
}

static void test_merge_exact(void)
{
    hist_t a, b, both, da, db, merged;
    char err[256];
    hist_init(&a, 11, 100000000ull);
    hist_init(&b, 11, 100000000ull);
    hist_init(&both, 11, 100000000ull);
    fill(&a, 30000, 700);
    fill(&b, 10000, 5000);
    hist_merge(&both, &a);
    hist_merge(&both, &b);
    char *ta = encode(&a), *tb = encode(&b);
    hcodec_read_json(ta, strlen(ta), &da, err, sizeof err);
    hcodec_read_json(tb, strlen(tb), &db, err, sizeof err);
    hist_init(&merged, 11, 100000000ull);
    hist_merge(&merged, &da);
    hist_merge(&merged, &db);
    CHECK(same(&both, &merged), "merge of decoded histograms differs from merge of the originals");
    /* two different populations: averaging their p99s is far from the merged p99 */
    double avg = (hist_percentile(&a, 99) + hist_percentile(&b, 99)) / 2.0;
    CHECK(fabs(avg - (double)hist_percentile(&merged, 99)) > 100, "test populations too alike");
    hist_free(&a); hist_free(&b); hist_free(&both); hist_free(&da); hist_free(&db); hist_free(&merged);
    free(ta);
    free(tb);
}

static void rejects(const char *text, const char *what)
{
    hist_t h;
    char err[256] = "";
    CHECK(hcodec_read_json(text, strlen(text), &h, err, sizeof err) == -1, "accepted %s", what);
    CHECK(err[0] != 0, "no reason given for %s", what);
}

static void test_rejects(void)
{
    /* "AQI=" is varints (1, 2): bucket 1 holds 2 */
    const char *ok = "{\"encoding\":\"arena-hist/1\",\"sub_bits\":11,\"highest\":100000000,\"count\":2,\"min\":1,"
                     "\"max\":1,\"sum\":2,\"sum_sq\":2,\"counts\":\"AQI=\"}";
    hist_t h;
    char err[256];
    CHECK(hcodec_read_json(ok, strlen(ok), &h, err, sizeof err) == 0, "hand-written encoding: %s", err);
    if (h.counts) CHECK(h.counts[1] == 2 && h.total == 2, "bucket 1 should hold 2");
    hist_free(&h);
    rejects("[]", "an array");
    rejects("{\"encoding\":\"other/1\",\"sub_bits\":11}", "another encoding");
    rejects("{\"encoding\":\"arena-hist/1\",\"sub_bits\":11,\"highest\":100000000,\"count\":3,\"min\":1,"
            "\"max\":1,\"sum\":2,\"sum_sq\":2,\"counts\":\"AQI=\"}", "a count that does not match");
    rejects("{\"encoding\":\"arena-hist/1\",\"sub_bits\":11,\"highest\":100000000,\"count\":2,\"min\":1,"
            "\"max\":1,\"sum\":2,\"sum_sq\":2,\"counts\":\"AQ*=\"}", "bad base64");
    rejects("{\"encoding\":\"arena-hist/1\",\"sub_bits\":11,\"highest\":100000000,\"count\":2,\"min\":1,"
            "\"max\":1,\"sum\":2,\"sum_sq\":2,\"counts\":\"gQ==\"}", "a truncated varint");
    rejects("{\"encoding\":\"arena-hist/1\",\"sub_bits\":11,\"highest\":100000000,\"count\":2,\"min\":1,"
            "\"max\":1,\"sum\":2,\"sum_sq\":2,\"counts\":\"/////w8C\"}", "a gap past the end");
    rejects("{\"encoding\":\"arena-hist/1\",\"sub_bits\":40,\"highest\":100000000,\"count\":0,\"min\":0,"
            "\"max\":0,\"sum\":0,\"sum_sq\":0,\"counts\":\"\"}", "sub_bits out of range");
    rejects("{\"encoding\":\"arena-hist/1\",\"sub_bits\":11,\"highest\":100000000,\"count\":2,\"min\":1,"
            "\"max\":1,\"sum\":2,\"counts\":\"AQI=\"}", "a missing field");
}

/* Writes an engine-like document with a whole-run histogram and a timeline. */
static void write_doc(const char *path, const hist_t *all, hist_t *secs, int nsecs, uint64_t errors)
{
    FILE *f = fopen(path, "w");
    fprintf(f, "{\"schema\":\"arena-load/1\",\"requests\":{\"sent\":%llu,\"completed\":%llu},\"errors\":{\"reset\":0,"
               "\"total\":%llu},\"latency_histogram\":",
            (unsigned long long)all->total, (unsigned long long)all->total, (unsigned long long)errors);
    hcodec_write_json(f, all);
    fputs(",\"timeline\":[", f);
    for (int t = 0; t < nsecs; t++) {
        fprintf(f, "%s{\"t\":%d,\"completed\":%llu,\"errors\":%d,\"p50_us\":1,\"p99_us\":2,\"error_kinds\":{},\"histogram\":",
                t ? "," : "", t, (unsigned long long)secs[t].total, t == 0);
        hcodec_write_json(f, &secs[t]);
        fputs("}", f);
    }
    fputs("]}\n", f);
    fclose(f);
}

static uint64_t field(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p ? strtoull(p + strlen(key), NULL, 10) : (uint64_t)-1;
}

static void test_merge_main(void)
{
    char dir[] = "/tmp/hcodec-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char pa[64], pb[64], pbad[64];
    snprintf(pa, sizeof pa, "%s/a.json", dir);
    snprintf(pb, sizeof pb, "%s/b.json", dir);
    snprintf(pbad, sizeof pbad, "%s/bad.json", dir);
    hist_t a, b, both, sa[2], sb[3];
    hist_init(&a, 11, 100000000ull);
    hist_init(&b, 11, 100000000ull);
    hist_init(&both, 11, 100000000ull);
    for (int i = 0; i < 2; i++) { hist_init(&sa[i], 7, 100000000ull); fill_both(&sa[i], &a, 1000, 900); }
    for (int i = 0; i < 3; i++) { hist_init(&sb[i], 7, 100000000ull); fill_both(&sb[i], &b, 400, 9000); }
    hist_merge(&both, &a);
    hist_merge(&both, &b);
    write_doc(pa, &a, sa, 2, 1);
    write_doc(pb, &b, sb, 3, 0);

    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    char *files[] = {pa, pb};
    CHECK(merge_main(2, files, f) == 0, "merge failed");
    fclose(f);
    CHECK(field(out, "\"p99\":") == hist_percentile(&both, 99), "merged p99 %llu != %llu",
          (unsigned long long)field(out, "\"p99\":"), (unsigned long long)hist_percentile(&both, 99));
    CHECK(field(out, "\"p50\":") == hist_percentile(&both, 50), "merged p50");
    CHECK(field(out, "\"p9999\":") == hist_percentile(&both, 99.99), "merged p99.99");
    CHECK(field(out, "\"count\":") == 3200, "merged count %llu", (unsigned long long)field(out, "\"count\":"));
    CHECK(field(out, "\"completed\":") == 3200, "completed summed");
    CHECK(field(out, "{\"total\":") == 1, "errors summed");
    /* second 0: 1000 + 400 completed, one error in each; second 2 only from b */
    CHECK(field(out, "{\"t\":0,\"completed\":") == 1400, "second 0 completed");
    CHECK(field(out, "{\"t\":2,\"completed\":") == 400, "second 2 completed");
    hist_t s0;
    hist_init(&s0, 7, 100000000ull);
    hist_merge(&s0, &sa[0]);
    hist_merge(&s0, &sb[0]);
    CHECK(strstr(out, "{\"t\":0,\"completed\":1400,\"errors\":2,") != NULL, "second 0 errors");
    char want[96];
    snprintf(want, sizeof want, "\"p99_us\":%llu}", (unsigned long long)hist_percentile(&s0, 99));
    CHECK(strstr(out, want) != NULL, "second 0 p99 is the merged one");
    free(out);

    FILE *bad = fopen(pbad, "w");
    fputs("{\"schema\":\"arena-load/1\",\"timeline\":[]}", bad);
    fclose(bad);
    char *files2[] = {pa, pbad};
    FILE *sink = fopen("/dev/null", "w");
    FILE *saved = stderr;
    stderr = sink; /* the one-line reason is expected here */
    CHECK(merge_main(2, files2, sink) == 2, "a document without histograms is refused");
    char missing[80];
    snprintf(missing, sizeof missing, "%s/none.json", dir);
    char *files3[] = {missing};
    CHECK(merge_main(1, files3, sink) == 2, "a missing file is refused");
    stderr = saved;
    fclose(sink);

    unlink(pa);
    unlink(pb);
    unlink(pbad);
    rmdir(dir);
    hist_free(&a); hist_free(&b); hist_free(&both); hist_free(&s0);
    for (int i = 0; i < 2; i++) hist_free(&sa[i]);
    for (int i = 0; i < 3; i++) hist_free(&sb[i]);
}

int main(void)
{
    test_roundtrip();
    test_compact();
    test_merge_exact();
    test_rejects();
    test_merge_main();
    return finish();
}
