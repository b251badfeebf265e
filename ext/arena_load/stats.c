#include "stats.h"

#include <stdlib.h>
#include <string.h>

const char *const error_names[ERR_KINDS] = {
    "connect_refused", "connect_timeout", "reset", "closed_before_response",
    "timeout", "parse", "unexpected_status", "body_mismatch",
    "handshake", "certificate", "alpn_mismatch", "goaway", "rst_stream", "flow_control",
};

int stats_init(stats_t *s)
{
    memset(s, 0, sizeof *s);
    if (hist_init(&s->lat, LAT_SUB_BITS, LAT_HIGHEST_US) < 0) return -1;
    if (hist_init(&s->handshake, LAT_SUB_BITS, LAT_HIGHEST_US) < 0) return -1;
    return hist_init(&s->good_lat, LAT_SUB_BITS, LAT_HIGHEST_US);
}

int stats_init_requests(stats_t *s, size_t n)
{
    if (n == 0) return 0;
    s->req = calloc(n, sizeof *s->req);
    if (!s->req) return -1;
    s->nreq = n;
    for (size_t i = 0; i < n; i++)
        if (hist_init(&s->req[i].good_lat, REQ_SUB_BITS, LAT_HIGHEST_US) < 0) return -1;
    return 0;
}

int stats_init_stages(stats_t *s, size_t n)
{
    if (n == 0) return 0;
    s->stage = calloc(n, sizeof *s->stage);
    if (!s->stage) return -1;
    s->nstage = n;
    for (size_t i = 0; i < n; i++)
        if (hist_init(&s->stage[i].good_lat, REQ_SUB_BITS, LAT_HIGHEST_US) < 0) return -1;
    return 0;
}

void stats_free(stats_t *s)
{
    hist_free(&s->lat);
    hist_free(&s->good_lat);
    for (size_t i = 0; i < s->nreq; i++) hist_free(&s->req[i].good_lat);
    free(s->req);
    s->req = NULL;
    s->nreq = 0;
    for (size_t i = 0; i < s->nstage; i++) hist_free(&s->stage[i].good_lat);
    free(s->stage);
    s->stage = NULL;
    s->nstage = 0;
    hist_free(&s->handshake);
}

void stats_merge(stats_t *dst, const stats_t *src)
{
    dst->sent += src->sent;
    dst->completed += src->completed;
    dst->good += src->good;
    dst->bytes += src->bytes;
    dst->opened += src->opened;
    dst->resent += src->resent;
    dst->warmup_sent += src->warmup_sent;
    dst->late += src->late;
    dst->dropped += src->dropped;
    for (int k = 0; k < ERR_KINDS; k++) dst->errors[k] += src->errors[k];
    for (int i = 0; i < 1000; i++) dst->status[i] += src->status[i];
    hist_merge(&dst->lat, &src->lat);
    hist_merge(&dst->good_lat, &src->good_lat);
    for (size_t i = 0; i < dst->nreq && i < src->nreq; i++) {
        dst->req[i].completed += src->req[i].completed;
        dst->req[i].good += src->req[i].good;
        hist_merge(&dst->req[i].good_lat, &src->req[i].good_lat);
    }
    for (size_t i = 0; i < dst->nstage && i < src->nstage; i++) {
        stage_stats_t *d = &dst->stage[i];
        const stage_stats_t *s = &src->stage[i];
        d->sent += s->sent;
        d->completed += s->completed;
        d->good += s->good;
        d->errors += s->errors;
        d->dropped += s->dropped;
        hist_merge(&d->good_lat, &s->good_lat);
    }
    hist_merge(&dst->handshake, &src->handshake);
    dst->tls_full += src->tls_full;
    dst->tls_resumed += src->tls_resumed;
    if (!dst->protocol[0]) memcpy(dst->protocol, src->protocol, sizeof dst->protocol);
    if (!dst->tls_version[0]) memcpy(dst->tls_version, src->tls_version, sizeof dst->tls_version);
}
