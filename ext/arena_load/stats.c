#include "stats.h"

#include <stdlib.h>
#include <string.h>

const char *const error_names[ERR_KINDS] = {
    "connect_refused", "connect_timeout", "reset", "closed_before_response",
    "timeout", "parse", "unexpected_status", "body_mismatch",
};

int stats_init(stats_t *s)
{
    memset(s, 0, sizeof *s);
    return hist_init(&s->lat, LAT_SUB_BITS, LAT_HIGHEST_US);
}

void stats_free(stats_t *s)
{
    hist_free(&s->lat);
    for (size_t i = 0; i < s->nseconds; i++) hist_free(&s->seconds[i].lat);
    free(s->seconds);
    s->seconds = NULL;
    s->nseconds = s->cap = 0;
}

second_t *stats_second(stats_t *s, size_t idx)
{
    if (idx >= MAX_SECONDS) return NULL;
    if (idx >= s->cap) {
        size_t cap = s->cap ? s->cap : 16;
        while (cap <= idx) cap *= 2;
        second_t *n = realloc(s->seconds, cap * sizeof *n);
        if (!n) return NULL;
        memset(n + s->cap, 0, (cap - s->cap) * sizeof *n);
        s->seconds = n;
        s->cap = cap;
    }
    if (idx >= s->nseconds) s->nseconds = idx + 1;
    return &s->seconds[idx];
}

void stats_second_record(second_t *sec, uint64_t lat_us)
{
    sec->completed++;
    if (!sec->lat.counts && hist_init(&sec->lat, SECOND_SUB_BITS, LAT_HIGHEST_US) < 0) return;
    hist_record(&sec->lat, lat_us);
}

int stats_merge(stats_t *dst, const stats_t *src)
{
    dst->sent += src->sent;
    dst->completed += src->completed;
    dst->bytes += src->bytes;
    dst->opened += src->opened;
    dst->resent += src->resent;
    dst->late += src->late;
    dst->dropped += src->dropped;
    for (int k = 0; k < ERR_KINDS; k++) dst->errors[k] += src->errors[k];
    for (int i = 0; i < 1000; i++) dst->status[i] += src->status[i];
    hist_merge(&dst->lat, &src->lat);
    for (size_t i = 0; i < src->nseconds; i++) {
        const second_t *a = &src->seconds[i];
        second_t *b = stats_second(dst, i);
        if (!b) return -1;
        b->completed += a->completed;
        for (int k = 0; k < ERR_KINDS; k++) b->errors[k] += a->errors[k];
        if (a->lat.counts) {
            if (!b->lat.counts && hist_init(&b->lat, SECOND_SUB_BITS, LAT_HIGHEST_US) < 0) return -1;
            hist_merge(&b->lat, &a->lat);
        }
    }
    return 0;
}
