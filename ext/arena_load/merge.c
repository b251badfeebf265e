#include "merge.h"

#include "hcodec.h"
#include "jsonscan.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* One document's timeline into secs (grown as needed). */
static int merge_timeline(js_span_t doc, merged_second_t **secs, size_t *nsecs, char *err, size_t errlen)
{
    js_span_t tl;
    if (js_member_span(doc, "timeline", '[', &tl) < 0) {
        snprintf(err, errlen, "no timeline");
        return -1;
    }
    const char *p = tl.p + 1;
    while (p < tl.end) {
        p = js_skip_ws(p, tl.end);
        if (*p == ',' ) { p++; continue; }
        if (*p == ']') break;
        js_span_t e = {p, js_skip_nested(p, tl.end)};
        if (*p != '{' || !e.end) {
            snprintf(err, errlen, "bad timeline entry");
            return -1;
        }
        p = e.end;
        uint64_t t, completed, errors;
        if (js_member_u64(e, "t", &t) || js_member_u64(e, "completed", &completed) || js_member_u64(e, "errors", &errors) ||
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
        if (js_member(e, "histogram", &hv) == 0 && *hv == '{') {
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

int merge_main(int nfiles, char **files, FILE *out)
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
        js_span_t doc = {js_skip_ws(text, text + len), text + len};
        js_span_t hs, req, er;
        hist_t h;
        err[0] = 0;
        if (doc.p >= doc.end || *doc.p != '{' || !(doc.end = js_skip_nested(doc.p, doc.end)))
            snprintf(err, sizeof err, "not a JSON object");
        else if (js_member_span(doc, "latency_histogram", '{', &hs) < 0)
            snprintf(err, sizeof err, "no latency_histogram (run the engine with --histograms)");
        else if (hcodec_read_json(hs.p, (size_t)(hs.end - hs.p), &h, err, sizeof err) == 0) {
            if (merge_into(&all, &h) < 0) snprintf(err, sizeof err, "histograms with different parameters");
            hist_free(&h);
        }
        uint64_t v;
        if (!err[0] && js_member_span(doc, "requests", '{', &req) == 0 && js_member_u64(req, "completed", &v) == 0)
            completed += v;
        if (!err[0] && js_member_span(doc, "errors", '{', &er) == 0 && js_member_u64(er, "total", &v) == 0) errors += v;
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
        hist_write_latency_json(out, &all);
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
