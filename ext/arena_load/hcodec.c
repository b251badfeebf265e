#include "hcodec.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- base64 and varints ---- */

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64(const unsigned char *in, size_t n)
{
    char *out = malloc(4 * ((n + 2) / 3) + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n) v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n) v |= in[i + 2];
        out[o++] = B64[(v >> 18) & 63];
        out[o++] = B64[(v >> 12) & 63];
        out[o++] = i + 1 < n ? B64[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? B64[v & 63] : '=';
    }
    out[o] = 0;
    return out;
}

static int b64_value(char c)
{
    const char *p = c ? strchr(B64, c) : NULL;
    return p ? (int)(p - B64) : -1;
}

/* Decodes n base64 characters into a malloc'd buffer; -1 if malformed. */
static long unbase64(const char *in, size_t n, unsigned char **out)
{
    if (n % 4) return -1;
    unsigned char *buf = malloc(n / 4 * 3 + 1);
    if (!buf) return -1;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int pad = (in[i + 3] == '=') + (in[i + 2] == '=');
        if (pad && i + 4 != n) goto bad;
        if (in[i + 2] == '=' && in[i + 3] != '=') goto bad;
        uint32_t v = 0;
        for (int k = 0; k < 4; k++) {
            int d = (k >= 4 - pad) ? 0 : b64_value(in[i + k]);
            if (d < 0) goto bad;
            v = v << 6 | (uint32_t)d;
        }
        buf[o++] = (unsigned char)(v >> 16);
        if (pad < 2) buf[o++] = (unsigned char)(v >> 8);
        if (pad < 1) buf[o++] = (unsigned char)v;
    }
    *out = buf;
    return (long)o;
bad:
    free(buf);
    return -1;
}

static size_t put_varint(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    do {
        unsigned char b = v & 0x7f;
        v >>= 7;
        p[n++] = b | (v ? 0x80 : 0);
    } while (v);
    return n;
}

static int get_varint(const unsigned char *p, size_t len, size_t *pos, uint64_t *v)
{
    uint64_t r = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*pos >= len) return -1;
        unsigned char b = p[(*pos)++];
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -1;
}

/* ---- encoding ---- */

char *hcodec_encode_counts(const hist_t *h)
{
    size_t nonzero = 0;
    for (size_t i = 0; i < h->ncounts; i++) nonzero += h->counts[i] != 0;
    unsigned char *raw = malloc(nonzero * 20 + 1);
    if (!raw) return NULL;
    size_t n = 0, pos = 0;
    for (size_t i = 0; i < h->ncounts; i++) {
        if (!h->counts[i]) continue;
        n += put_varint(raw + n, i - pos);
        n += put_varint(raw + n, h->counts[i]);
        pos = i + 1;
    }
    char *text = base64(raw, n);
    free(raw);
    return text;
}

void hcodec_write_json(FILE *out, const hist_t *h)
{
    char *counts = hcodec_encode_counts(h);
    fprintf(out,
            "{\"encoding\":\"" HCODEC_ENCODING "\",\"sub_bits\":%d,\"highest\":%llu,\"count\":%llu,\"min\":%llu,"
            "\"max\":%llu,\"sum\":%llu,\"sum_sq\":%.17g,\"counts\":\"%s\"}",
            h->sub_bits, (unsigned long long)h->highest, (unsigned long long)h->total,
            (unsigned long long)(h->total ? h->min : 0), (unsigned long long)h->max, (unsigned long long)h->sum,
            h->sum_sq, counts ? counts : "");
    free(counts);
}

/* ---- a small JSON reader: enough for the engine's own documents ---- */

typedef struct {
    const char *p, *end;
} span_t;

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p)) p++;
    return p;
}

/* p at a '"': returns just past the closing quote, or NULL. */
static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\') p++;
        else if (*p == '"') return p + 1;
    }
    return NULL;
}

/* p at '{' or '[': returns just past the matching close, or NULL. */
static const char *skip_nested(const char *p, const char *end)
{
    int depth = 0;
    while (p < end) {
        if (*p == '"') {
            p = skip_string(p, end);
            if (!p) return NULL;
            continue;
        }
        if (*p == '{' || *p == '[') depth++;
        if (*p == '}' || *p == ']') {
            if (--depth == 0) return p + 1;
        }
        p++;
    }
    return NULL;
}

/* The value of key among obj's own members (not nested ones); obj spans
 * '{'..'}'. Returns 0 and the value's start in *val, or -1. */
static int member(span_t obj, const char *key, const char **val)
{
    const char *p = obj.p + 1, *end = obj.end;
    size_t klen = strlen(key);
    while (p < end) {
        p = skip_ws(p, end);
        if (p >= end || *p == '}') return -1;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p != '"') return -1;
        const char *kend = skip_string(p, end);
        if (!kend) return -1;
        int match = (size_t)(kend - p - 2) == klen && !memcmp(p + 1, key, klen);
        p = skip_ws(kend, end);
        if (p >= end || *p != ':') return -1;
        p = skip_ws(p + 1, end);
        if (match) {
            *val = p;
            return 0;
        }
        if (*p == '{' || *p == '[') p = skip_nested(p, end);
        else if (*p == '"') p = skip_string(p, end);
        else
            while (p < end && *p != ',' && *p != '}') p++;
        if (!p) return -1;
    }
    return -1;
}

static int member_span(span_t obj, const char *key, char open, span_t *out)
{
    const char *v;
    if (member(obj, key, &v) < 0 || *v != open) return -1;
    const char *e = skip_nested(v, obj.end);
    if (!e) return -1;
    out->p = v;
    out->end = e;
    return 0;
}

static int member_u64(span_t obj, const char *key, uint64_t *out)
{
    const char *v;
    if (member(obj, key, &v) < 0 || !isdigit((unsigned char)*v)) return -1;
    errno = 0;
    char *e;
    unsigned long long n = strtoull(v, &e, 10);
    if (errno || (*e != ',' && *e != '}' && !isspace((unsigned char)*e))) return -1;
    *out = n;
    return 0;
}

static int member_double(span_t obj, const char *key, double *out)
{
    const char *v;
    if (member(obj, key, &v) < 0) return -1;
    char *e;
    errno = 0;
    *out = strtod(v, &e);
    if (errno || e == v || *out < 0) return -1;
    return 0;
}

/* ---- decoding ---- */

int hcodec_read_json(const char *text, size_t len, hist_t *h, char *err, size_t errlen)
{
#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)
    memset(h, 0, sizeof *h);
    unsigned char *raw = NULL;
    span_t obj = {skip_ws(text, text + len), text + len};
    if (obj.p >= obj.end || *obj.p != '{' || !(obj.end = skip_nested(obj.p, obj.end))) BAD("histogram is not a JSON object");
    const char *enc;
    if (member(obj, "encoding", &enc) < 0 || strncmp(enc, "\"" HCODEC_ENCODING "\"", strlen(HCODEC_ENCODING) + 2))
        BAD("histogram encoding is not " HCODEC_ENCODING);
    uint64_t sub_bits, highest, count, min, max, sum;
    double sum_sq;
    if (member_u64(obj, "sub_bits", &sub_bits) || member_u64(obj, "highest", &highest) ||
        member_u64(obj, "count", &count) || member_u64(obj, "min", &min) || member_u64(obj, "max", &max) ||
        member_u64(obj, "sum", &sum) || member_double(obj, "sum_sq", &sum_sq))
        BAD("histogram lacks a field or has a bad number");
    if (sub_bits < 2 || sub_bits > 20 || highest < 1 || highest > ((uint64_t)1 << 62))
        BAD("histogram parameters out of range (sub_bits %llu, highest %llu)", (unsigned long long)sub_bits,
            (unsigned long long)highest);
    if (hist_init(h, (int)sub_bits, highest) < 0) BAD("out of memory");
    const char *c;
    if (member(obj, "counts", &c) < 0 || *c != '"') BAD("histogram has no counts string");
    const char *cend = memchr(c + 1, '"', (size_t)(obj.end - c - 1));
    if (!cend) BAD("unterminated counts string");
    long n = unbase64(c + 1, (size_t)(cend - c - 1), &raw);
    if (n < 0) BAD("counts are not valid base64");
    size_t pos = 0, idx = 0;
    uint64_t total = 0;
    while (pos < (size_t)n) {
        uint64_t gap, k;
        if (get_varint(raw, (size_t)n, &pos, &gap) || get_varint(raw, (size_t)n, &pos, &k)) BAD("truncated counts");
        if (gap >= h->ncounts - idx || k == 0) BAD("counts run past the histogram or hold a zero");
        idx += gap;
        h->counts[idx++] = k;
        total += k;
    }
    if (total != count) BAD("counts add up to %llu, not count %llu", (unsigned long long)total, (unsigned long long)count);
    /* max may exceed highest: values beyond it go in the last bucket, max stays exact (engine helper) */
    if (count && min > max) BAD("histogram min/max inconsistent");
    h->total = count;
    h->min = count ? min : UINT64_MAX;
    h->max = max;
    h->sum = sum;
    h->sum_sq = sum_sq;
    free(raw);
    return 0;
fail:
    free(raw);
    hist_free(h);
    return -1;
#undef BAD
}

/* ---- merge of engine documents ---- */

typedef struct {
    uint64_t completed, errors;
    hist_t lat; /* counts NULL until a second with a histogram is seen */
} merged_second_t;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        char *more = realloc(buf, cap * 2);
        if (!more) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = more;
        cap *= 2;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int merge_into(hist_t *dst, const hist_t *src)
{
    if (!dst->counts) {
        if (hist_init(dst, src->sub_bits, src->highest) < 0) return -1;
    } else if (dst->sub_bits != src->sub_bits || dst->highest != src->highest) {
        return -1;
    }
    hist_merge(dst, src);
    return 0;
}

static void write_latency(FILE *out, const hist_t *h)
{
    fprintf(out,
            "{\"count\":%llu,\"min\":%llu,\"mean\":%.1f,\"stdev\":%.1f,\"max\":%llu,\"p50\":%llu,\"p75\":%llu,"
            "\"p90\":%llu,\"p99\":%llu,\"p999\":%llu,\"p9999\":%llu}",
            (unsigned long long)h->total, (unsigned long long)(h->total ? h->min : 0), hist_mean(h), hist_stdev(h),
            (unsigned long long)h->max, (unsigned long long)hist_percentile(h, 50),
            (unsigned long long)hist_percentile(h, 75), (unsigned long long)hist_percentile(h, 90),
            (unsigned long long)hist_percentile(h, 99), (unsigned long long)hist_percentile(h, 99.9),
            (unsigned long long)hist_percentile(h, 99.99));
}

/* One document's timeline into secs (grown as needed). */
static int merge_timeline(span_t doc, merged_second_t **secs, size_t *nsecs, char *err, size_t errlen)
{
    span_t tl;
    if (member_span(doc, "timeline", '[', &tl) < 0) {
        snprintf(err, errlen, "no timeline");
        return -1;
    }
    const char *p = tl.p + 1;
    while (p < tl.end) {
        p = skip_ws(p, tl.end);
        if (*p == ',' ) { p++; continue; }
        if (*p == ']') break;
        span_t e = {p, skip_nested(p, tl.end)};
        if (*p != '{' || !e.end) {
            snprintf(err, errlen, "bad timeline entry");
            return -1;
        }
        p = e.end;
        uint64_t t, completed, errors;
        if (member_u64(e, "t", &t) || member_u64(e, "completed", &completed) || member_u64(e, "errors", &errors) ||
            t >= 86400) {
            snprintf(err, errlen, "timeline entry lacks t, completed or errors");
            return -1;
        }
        if (t >= *nsecs) {
            merged_second_t *more = realloc(*secs, (t + 1) * sizeof *more);
            if (!more) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            memset(more + *nsecs, 0, (t + 1 - *nsecs) * sizeof *more);
            *secs = more;
            *nsecs = t + 1;
        }
        merged_second_t *s = &(*secs)[t];
        s->completed += completed;
        s->errors += errors;
        const char *hv;
        if (member(e, "histogram", &hv) == 0 && *hv == '{') {
            hist_t h;
            if (hcodec_read_json(hv, (size_t)(e.end - hv), &h, err, errlen) < 0) return -1;
            int rc = merge_into(&s->lat, &h);
            hist_free(&h);
            if (rc < 0) {
                snprintf(err, errlen, "second %llu: histograms with different parameters", (unsigned long long)t);
                return -1;
            }
        }
    }
    return 0;
}

int hcodec_merge_main(int nfiles, char **files, FILE *out)
{
    char err[256];
    hist_t all;
    memset(&all, 0, sizeof all);
    merged_second_t *secs = NULL;
    size_t nsecs = 0;
    uint64_t completed = 0, errors = 0;
    int status = 0;
    if (nfiles < 1) {
        fputs("arena-load: --merge needs at least one JSON file\n", stderr);
        return 2;
    }
    for (int i = 0; i < nfiles && !status; i++) {
        size_t len;
        char *text = slurp(files[i], &len);
        if (!text) {
            fprintf(stderr, "arena-load: cannot read %s: %s\n", files[i], strerror(errno));
            status = 2;
            break;
        }
        span_t doc = {skip_ws(text, text + len), text + len};
        span_t hs, req, er;
        hist_t h;
        err[0] = 0;
        if (doc.p >= doc.end || *doc.p != '{' || !(doc.end = skip_nested(doc.p, doc.end)))
            snprintf(err, sizeof err, "not a JSON object");
        else if (member_span(doc, "latency_histogram", '{', &hs) < 0)
            snprintf(err, sizeof err, "no latency_histogram (run the engine with --histograms)");
        else if (hcodec_read_json(hs.p, (size_t)(hs.end - hs.p), &h, err, sizeof err) == 0) {
            if (merge_into(&all, &h) < 0) snprintf(err, sizeof err, "histograms with different parameters");
            hist_free(&h);
        }
        uint64_t v;
        if (!err[0] && member_span(doc, "requests", '{', &req) == 0 && member_u64(req, "completed", &v) == 0)
            completed += v;
        if (!err[0] && member_span(doc, "errors", '{', &er) == 0 && member_u64(er, "total", &v) == 0) errors += v;
        if (!err[0]) merge_timeline(doc, &secs, &nsecs, err, sizeof err);
        if (err[0]) {
            fprintf(stderr, "arena-load: %s: %s\n", files[i], err);
            status = 2;
        }
        free(text);
    }
    if (!status) {
        fprintf(out, "{\"schema\":\"arena-load-merge/1\",\"inputs\":%d,\"requests\":{\"completed\":%llu}", nfiles,
                (unsigned long long)completed);
        fprintf(out, ",\"errors\":{\"total\":%llu},\"latency_us\":", (unsigned long long)errors);
        write_latency(out, &all);
        fputs(",\"latency_histogram\":", out);
        hcodec_write_json(out, &all);
        fputs(",\"timeline\":[", out);
        for (size_t t = 0; t < nsecs; t++) {
            const hist_t *h = &secs[t].lat;
            fprintf(out, "%s{\"t\":%zu,\"completed\":%llu,\"errors\":%llu,\"p50_us\":%llu,\"p99_us\":%llu}", t ? "," : "",
                    t, (unsigned long long)secs[t].completed, (unsigned long long)secs[t].errors,
                    (unsigned long long)(h->counts ? hist_percentile(h, 50) : 0),
                    (unsigned long long)(h->counts ? hist_percentile(h, 99) : 0));
        }
        fputs("]}\n", out);
    }
    for (size_t t = 0; t < nsecs; t++) hist_free(&secs[t].lat);
    free(secs);
    hist_free(&all);
    return status;
}

/* ---- start barrier ---- */

int hcodec_wait_go(char *err, size_t errlen)
{
    fputs("ready\n", stderr);
    fflush(stderr);
    char line[64];
    if (!fgets(line, sizeof line, stdin)) {
        snprintf(err, errlen, "--wait-go: input closed before 'go'");
        return -1;
    }
    line[strcspn(line, "\r\n")] = 0;
    if (strcmp(line, "go") != 0) {
        snprintf(err, errlen, "--wait-go: expected 'go', got '%.32s'", line);
        return -1;
    }
    return 0;
}
