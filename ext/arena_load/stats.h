/* What one thread measured; merged across threads at the end. */
#ifndef ARENA_STATS_H
#define ARENA_STATS_H

#include "histogram.h"

#include <stddef.h>
#include <stdint.h>

enum {
    ERR_CONNECT_REFUSED,
    ERR_CONNECT_TIMEOUT,
    ERR_RESET,
    ERR_CLOSED_BEFORE_RESPONSE,
    ERR_TIMEOUT,
    ERR_PARSE,
    ERR_UNEXPECTED_STATUS,
    ERR_BODY_MISMATCH,
    ERR_HANDSHAKE,     /* TLS handshake failed (other than the certificate) */
    ERR_CERTIFICATE,   /* the server's certificate did not verify (expired, wrong name, unknown CA) */
    ERR_ALPN,          /* the server did not choose the protocol asked for (h2) */
    ERR_GOAWAY,        /* HTTP/2 GOAWAY with an error code */
    ERR_RST_STREAM,    /* HTTP/2 stream reset by the server */
    ERR_FLOW_CONTROL,  /* HTTP/2 flow-control violation (either side) */
    ERR_KINDS
};

extern const char *const error_names[ERR_KINDS];

/* Latency histogram: ~3 significant digits up to an hour (beyond it only the
 * bucket is clamped). An open-model queue on a stalled server reaches minutes:
 * at 100 s, samples of 150-250 s read as a p50 of 100 s. */
#define LAT_SUB_BITS 11
#define LAT_HIGHEST_US 3600000000ULL /* 1 hour */

typedef struct {
    uint64_t sent, completed, bytes, opened, late, dropped;
    uint64_t resent; /* requests sent again after the server closed between responses */
    uint64_t warmup_sent; /* requests the warm-up sent (not counted elsewhere): a
                           * server-side count over the whole run (a database's
                           * statements) is divided by these and sent */
    uint64_t good;   /* completed with the expected status and body */
    uint64_t errors[ERR_KINDS];
    uint64_t status[1000];
    hist_t lat;      /* every completed response (open model: and dropped requests) */
    hist_t good_lat; /* good responses only */
    size_t nreq;     /* a mix: one req_stats_t per request of it (0: none) */
    struct req_stats *req;
    size_t nstage;   /* --profile: one stage_stats_t per stage (0: none) */
    struct stage_stats *stage;
    hist_t handshake;   /* connect() to ready to send: TCP, then TLS and the HTTP/2 preface */
    uint64_t tls_full, tls_resumed; /* TLS handshakes by kind */
    char protocol[16];  /* negotiated: "http/1.1", "h2" or "h2c" (first connection that saw it) */
    char tls_version[16];
} stats_t;

/* One request of a mix: its responses, the good ones, their latency
 * (~2 significant digits: a mix may have hundreds of requests per thread). */
#define REQ_SUB_BITS 8
typedef struct req_stats {
    uint64_t completed, good;
    hist_t good_lat;
} req_stats_t;

/* One stage of a profile, by the intended time of its requests. */
typedef struct stage_stats {
    uint64_t sent, completed, good, errors, dropped;
    hist_t good_lat;
} stage_stats_t;

int stats_init(stats_t *s);
/* Adds n per-request records to an initialised s; 0, or -1 when out of memory. */
int stats_init_requests(stats_t *s, size_t n);
/* Adds n per-stage records to an initialised s; 0, or -1 when out of memory. */
int stats_init_stages(stats_t *s, size_t n);
void stats_free(stats_t *s);
void stats_merge(stats_t *dst, const stats_t *src);

#endif
