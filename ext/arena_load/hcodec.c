#include "hcodec.h"
#include "jsonscan.h"

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

/* ---- decoding ---- */

int hcodec_read_json(const char *text, size_t len, hist_t *h, char *err, size_t errlen)
{
#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)
    memset(h, 0, sizeof *h);
    unsigned char *raw = NULL;
    js_span_t obj = {js_skip_ws(text, text + len), text + len};
    if (obj.p >= obj.end || *obj.p != '{' || !(obj.end = js_skip_nested(obj.p, obj.end))) BAD("histogram is not a JSON object");
    const char *enc;
    if (js_member(obj, "encoding", &enc) < 0 || strncmp(enc, "\"" HCODEC_ENCODING "\"", strlen(HCODEC_ENCODING) + 2))
        BAD("histogram encoding is not " HCODEC_ENCODING);
    uint64_t sub_bits, highest, count, min, max, sum;
    double sum_sq;
    if (js_member_u64(obj, "sub_bits", &sub_bits) || js_member_u64(obj, "highest", &highest) ||
        js_member_u64(obj, "count", &count) || js_member_u64(obj, "min", &min) || js_member_u64(obj, "max", &max) ||
        js_member_u64(obj, "sum", &sum) || js_member_double(obj, "sum_sq", &sum_sq))
        BAD("histogram lacks a field or has a bad number");
    if (sub_bits < 2 || sub_bits > 20 || highest < 1 || highest > ((uint64_t)1 << 62))
        BAD("histogram parameters out of range (sub_bits %llu, highest %llu)", (unsigned long long)sub_bits,
            (unsigned long long)highest);
    if (hist_init(h, (int)sub_bits, highest) < 0) BAD("out of memory");
    const char *c;
    if (js_member(obj, "counts", &c) < 0 || *c != '"') BAD("histogram has no counts string");
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
