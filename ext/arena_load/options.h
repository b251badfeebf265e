/* Command line flags. */
#ifndef ARENA_OPTIONS_H
#define ARENA_OPTIONS_H

#include "profile.h"

#include <stddef.h>
#include <stdint.h>

#define ARENA_VERSION "0.1.0"
#define MAX_HEADERS 64
#define MAX_CPUS 1024

/* expect_status values besides a code */
#define EXPECT_2XX_3XX 0
#define EXPECT_ANY -1

typedef struct {
    const char *target;
    int connections;
    int threads;             /* default: one per CPU of --cpus, else 1 */
    int threads_given;
    double duration_s;       /* 0: none */
    double warmup_s;
    uint64_t total;          /* -n, 0: none */
    uint64_t repetitions;    /* -r, 0: none */
    double rate;             /* -R, 0: closed model (with --profile: its mean rate) */
    profile_t profile;       /* --profile: stages of an open-model rate (profile.n 0: none) */
    int pipeline;
    int keep_alive;
    const char *headers[MAX_HEADERS];
    int nheaders;
    const char *method;
    const char *body_file;
    const char *mix_file;
    double timeout_s;
    double connect_timeout_s;
    int json;                /* 1 json, 0 human, -1 decide by isatty */
    uint64_t timeline_ms;    /* --timeline-ms: length of a timeline interval */
    int allow_remote;
    int request_start;       /* --request-start: X-Request-Start: t=<us> on every request */
    uint64_t request_start_every; /* --request-start-every N: the header on one request in N (default 1) */
    int request_start_warmup; /* --request-start-warmup: the header only on the warm-up's requests, not a connection's first */
    int histograms;          /* --histograms: encoded histograms in the JSON (hcodec.h) */
    int wait_go;             /* --wait-go: start on a 'go' line on stdin */
    int expect_status;
    const char *expect_body;
    /* transport (transport.h): https:// targets are TLS */
    int http2;               /* --http2: h2 over TLS (ALPN) or h2c with prior knowledge */
    int h2_streams;          /* --h2-streams: concurrent streams per connection (the depth) */
    int tls_resume;          /* --tls-resume: resume TLS sessions on reconnect */
    const char *cacert;      /* --cacert: verify the server against this CA */
    const char *alpn;        /* --alpn: protocols offered (default h2 or http/1.1) */
    int cpus[MAX_CPUS];
    int ncpus;
} options_t;

enum { OPTIONS_RUN = 0, OPTIONS_EXIT = 1, OPTIONS_ERROR = -1 };

/* Fills o from argv. OPTIONS_EXIT: --help or --version was printed. On
 * OPTIONS_ERROR err holds a one-line reason. */
int options_parse(options_t *o, int argc, char **argv, char *err, size_t errlen);

void options_usage(void);

#endif
