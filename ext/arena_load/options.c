/* Command line flags: every flag is one row of `flags` below (its names,
 * value, help line and setter); parsing and --help both read the table. */
#include "options.h"
#include "transport.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max) return -1;
    *out = v;
    return 0;
}

static int parse_seconds(const char *s, double *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0) return -1;
    if (strcmp(end, "") == 0 || strcmp(end, "s") == 0) {
    } else if (strcmp(end, "ms") == 0) {
        v /= 1000;
    } else if (strcmp(end, "us") == 0) {
        v /= 1e6;
    } else if (strcmp(end, "m") == 0) {
        v *= 60;
    } else if (strcmp(end, "h") == 0) {
        v *= 3600;
    } else {
        return -1;
    }
    if (v > 1e7) return -1;
    *out = v;
    return 0;
}

static int parse_cpus(options_t *o, const char *s)
{
    const char *p = s;
    o->ncpus = 0;
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p)) return -1;
        long a = strtol(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            p++;
            if (!isdigit((unsigned char)*p)) return -1;
            b = strtol(p, &end, 10);
            p = end;
        }
        if (a < 0 || b < a || b >= MAX_CPUS) return -1;
        for (long c = a; c <= b; c++) {
            if (o->ncpus >= MAX_CPUS) return -1;
            o->cpus[o->ncpus++] = (int)c;
        }
        if (*p == ',') {
            p++;
            if (!*p) return -1;
        } else if (*p) {
            return -1;
        }
    }
    return o->ncpus ? 0 : -1;
}

static int valid_token(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s)) return 0;
    return 1;
}

#define BAD(...)                                  \
    do {                                          \
        snprintf(err, errlen, __VA_ARGS__);       \
        return -1;                                \
    } while (0)

/* A setter: 0 done, -1 bad value (err says why), 1 stop here (--help). */
#define SETTER(name) static int name(options_t *o, const char *v, char *err, size_t errlen)

SETTER(set_connections)
{
    uint64_t u;
    if (parse_uint(v, 1000000, &u) || u == 0) BAD("bad connection count '%s'", v);
    o->connections = (int)u;
    return 0;
}

SETTER(set_threads)
{
    uint64_t u;
    if (parse_uint(v, 1024, &u) || u == 0) BAD("bad thread count '%s'", v);
    o->threads = (int)u;
    o->threads_given = 1;
    return 0;
}

SETTER(set_cpus)
{
    if (parse_cpus(o, v)) BAD("bad CPU list '%s'", v);
    return 0;
}

SETTER(set_duration)
{
    if (parse_seconds(v, &o->duration_s) || o->duration_s <= 0) BAD("bad duration '%s'", v);
    return 0;
}

SETTER(set_requests)
{
    if (parse_uint(v, UINT64_MAX / 4, &o->total) || o->total == 0) BAD("bad request count '%s'", v);
    return 0;
}

SETTER(set_repetitions)
{
    if (parse_uint(v, UINT64_MAX / 4, &o->repetitions) || o->repetitions == 0) BAD("bad repetition count '%s'", v);
    return 0;
}

SETTER(set_warmup)
{
    if (parse_seconds(v, &o->warmup_s)) BAD("bad warm-up '%s'", v);
    return 0;
}

SETTER(set_rate)
{
    char *end;
    errno = 0;
    o->rate = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(o->rate) || o->rate < 1e-3 || o->rate > 1e8)
        BAD("bad rate '%s' (requests per second, 0.001 to 1e8; fractions allowed: -R 0.2)", v);
    return 0;
}

SETTER(set_profile)
{
    if (profile_parse(&o->profile, v, err, errlen) < 0) return -1;
    return 0;
}

SETTER(set_request_start)
{
    (void)v;
    (void)err;
    (void)errlen;
    o->request_start = 1;
    return 0;
}

/* One request in N carries the header: a server pays for parsing it on
 * every request that has it (Falcon and Iodine lost 12-13% of their
 * throughput to the header alone, paired, bench/probe_cost). */
SETTER(set_request_start_every)
{
    uint64_t u;
    if (parse_uint(v, 1000000, &u) || u == 0) BAD("bad --request-start-every '%s' (1..1000000)", v);
    o->request_start = 1;
    o->request_start_every = u;
    return 0;
}

/* The header on the warm-up's requests only, after each connection's first
 * (the loop's first turn): the counted phase goes without it, so
 * the observer stays out of the figure (the header on one request in 16,
 * timed, cost Puma 6-8% of its good req/s, paired, bench/probe_cost), and
 * the timed requests met a loop already full (a first turn queues behind
 * part of it only: Thin with one slot holds 32 connections for 1.6 s). */
SETTER(set_request_start_warmup)
{
    (void)v;
    (void)err;
    (void)errlen;
    o->request_start = 1;
    o->request_start_warmup = 1;
    return 0;
}

SETTER(set_pipeline)
{
    uint64_t u;
    if (parse_uint(v, 1024, &u) || u == 0) BAD("bad pipeline depth '%s'", v);
    o->pipeline = (int)u;
    return 0;
}

SETTER(set_no_keep_alive)
{
    (void)v, (void)err, (void)errlen;
    o->keep_alive = 0;
    return 0;
}

SETTER(set_method)
{
    if (!valid_token(v)) BAD("bad method '%s'", v);
    o->method = v;
    return 0;
}

SETTER(set_header)
{
    const char *colon = strchr(v, ':');
    if (!colon || colon == v || strpbrk(v, "\r\n")) BAD("bad header '%s': expected 'Name: value'", v);
    for (const char *q = v; q < colon; q++)
        if (!isalnum((unsigned char)*q) && !strchr("!#$%&'*+-.^_`|~", *q)) BAD("bad header name in '%s'", v);
    if (o->nheaders >= MAX_HEADERS) BAD("too many headers (at most %d)", MAX_HEADERS);
    o->headers[o->nheaders++] = v;
    return 0;
}

SETTER(set_body)
{
    (void)err, (void)errlen;
    o->body_file = v;
    return 0;
}

SETTER(set_mix)
{
    (void)err, (void)errlen;
    o->mix_file = v;
    return 0;
}

SETTER(set_expect_status)
{
    uint64_t u;
    if (!strcmp(v, "any") || !strcmp(v, "*")) {
        o->expect_status = EXPECT_ANY;
        return 0;
    }
    if (parse_uint(v, 999, &u) || u < 100) BAD("bad expected status '%s'", v);
    o->expect_status = (int)u;
    return 0;
}

SETTER(set_expect_body)
{
    if (!*v) BAD("empty --expect-body");
    o->expect_body = v;
    return 0;
}

SETTER(set_timeout)
{
    if (parse_seconds(v, &o->timeout_s) || o->timeout_s <= 0) BAD("bad timeout '%s'", v);
    return 0;
}

SETTER(set_connect_timeout)
{
    if (parse_seconds(v, &o->connect_timeout_s) || o->connect_timeout_s <= 0) BAD("bad connect timeout '%s'", v);
    return 0;
}

SETTER(set_json)
{
    (void)v, (void)err, (void)errlen;
    o->json = 1;
    return 0;
}

SETTER(set_human)
{
    (void)v, (void)err, (void)errlen;
    o->json = 0;
    return 0;
}

SETTER(set_timeline_ms)
{
    if (parse_uint(v, 3600000, &o->timeline_ms) || o->timeline_ms == 0)
        BAD("bad timeline interval '%s' (milliseconds, 1..3600000)", v);
    return 0;
}

SETTER(set_allow_remote)
{
    (void)v, (void)err, (void)errlen;
    o->allow_remote = 1;
    return 0;
}

SETTER(set_histograms)
{
    (void)v, (void)err, (void)errlen;
    o->histograms = 1;
    return 0;
}

SETTER(set_wait_go)
{
    (void)v, (void)err, (void)errlen;
    o->wait_go = 1;
    return 0;
}

SETTER(set_http2)
{
    (void)v, (void)err, (void)errlen;
    o->http2 = 1;
    return 0;
}

SETTER(set_h2_streams)
{
    uint64_t u;
    if (parse_uint(v, 1024, &u) || u == 0) BAD("bad stream count '%s' (1..1024)", v);
    o->h2_streams = (int)u;
    return 0;
}

SETTER(set_tls_resume)
{
    (void)v, (void)err, (void)errlen;
    o->tls_resume = 1;
    return 0;
}

SETTER(set_cacert)
{
    if (!*v) BAD("empty --cacert");
    o->cacert = v;
    return 0;
}

SETTER(set_alpn)
{
    if (!*v || strlen(v) > 200) BAD("bad --alpn '%s'", v);
    o->alpn = v;
    return 0;
}

SETTER(set_merge)
{
    (void)o, (void)v;
    BAD("--merge must be the first argument (arena-load --merge FILE...)");
}

SETTER(show_version)
{
    (void)o, (void)v, (void)err, (void)errlen;
    printf("arena-load %s (transports: http1%s%s)\n", ARENA_VERSION, transport_has_tls() ? " tls" : "",
           transport_has_h2() ? " h2 h2c" : "");
    return 1;
}

SETTER(show_help)
{
    (void)o, (void)v, (void)err, (void)errlen;
    options_usage();
    return 1;
}

#undef BAD

typedef struct {
    char short_name;     /* 0: long name only */
    const char *name;    /* long name */
    const char *arg;     /* the value's name in --help; NULL: a switch */
    const char *help;    /* '\n' continues on the next help line */
    const char *section; /* a heading printed before this flag */
    int (*set)(options_t *o, const char *v, char *err, size_t errlen);
} flag_t;

static const flag_t flags[] = {
    {'c', "connections", "N", "connections to keep open (default 10)", "Load", set_connections},
    {'t', "threads", "N", "threads, each with its own epoll loop\n(default: one per CPU of --cpus, else 1)", NULL,
     set_threads},
    {0, "cpus", "LIST", "pin threads to these CPUs, e.g. 1 or 0,2 or 2-3", NULL, set_cpus},
    {'d', "duration", "SEC", "length of the counted phase (default 10 when no -n/-r)", NULL, set_duration},
    {'n', "requests", "N", "stop after N requests in total", NULL, set_requests},
    {'r', "repetitions", "N", "requests per connection, then stop (closed model)", NULL, set_repetitions},
    {'w', "warmup", "SEC", "warm-up before the counted phase (not counted)", NULL, set_warmup},
    {'R', "rate", "RATE",
     "open model: RATE requests/s on a constant schedule;\nlatency from each request's intended start", NULL, set_rate},
    {0, "profile", "STAGES",
     "open model by stages in order, 'R0:R1:SEC,...' (a rate from R0\nto R1 requests/s over SEC; R0 = R1 holds)",
     NULL, set_profile},
    {'p', "pipeline", "N", "requests in flight per connection (default 1)", NULL, set_pipeline},
    {0, "no-keep-alive", NULL, "a new connection for every request", NULL, set_no_keep_alive},
    {'m', "method", "METHOD", "request method (default GET, POST with --body)", "Requests", set_method},
    {'H', "header", "'N: V'", "add a request header (repeatable)", NULL, set_header},
    {0, "body", "FILE", "request body read from FILE", NULL, set_body},
    {0, "mix", "FILE", "request mix: lines 'weight method path status [body substring]'", NULL, set_mix},
    {0, "request-start", NULL, "send X-Request-Start: t=<microseconds> (the send time) with every request", NULL,
     set_request_start},
    {0, "request-start-every", "N", "send X-Request-Start with one request in N only (implies --request-start)", NULL,
     set_request_start_every},
    {0, "request-start-warmup", NULL, "send X-Request-Start only with the warm-up's requests,\nnot with a connection's first", NULL,
     set_request_start_warmup},
    {0, "expect-status", "N", "status a response must have (default: any 2xx or 3xx; 'any')", NULL, set_expect_status},
    {0, "expect-body", "STR", "substring the response body must contain", NULL, set_expect_body},
    {0, "http2", NULL, "HTTP/2: over TLS (ALPN h2) for https://, h2c (prior knowledge) for http://", "Transport",
     set_http2},
    {0, "h2-streams", "N", "HTTP/2 requests in flight per connection (default 1)", NULL, set_h2_streams},
    {0, "tls-resume", NULL, "resume TLS sessions on reconnect (default: a full handshake each)", NULL, set_tls_resume},
    {0, "cacert", "FILE", "verify the server's certificate against this CA (default: not verified)", NULL,
     set_cacert},
    {0, "alpn", "LIST", "protocols offered by ALPN, e.g. h2,http/1.1 (default h2 or http/1.1)", NULL, set_alpn},
    {0, "timeout", "SEC", "response timeout (default 5)", "Timing", set_timeout},
    {0, "connect-timeout", "SEC", "connect timeout (default 2)", NULL, set_connect_timeout},
    {0, "json", NULL, "one JSON document (default when stdout is not a terminal)", "Output", set_json},
    {0, "human", NULL, "a human summary (default on a terminal)", NULL, set_human},
    {0, "timeline-ms", "N", "timeline interval in milliseconds (default 1000)", NULL, set_timeline_ms},
    {0, "histograms", NULL, "add the encoded latency histograms (whole run, per interval)", NULL, set_histograms},
    {0, "allow-remote", NULL, "allow addresses outside 127.0.0.0/8 and ::1", NULL, set_allow_remote},
    {0, "wait-go", NULL, "print 'ready' on stderr, start on a line 'go' on stdin", "Distributed runs", set_wait_go},
    {0, "merge", "FILE...", "merge engine JSON documents (written with --histograms)", NULL, set_merge},
    {'V', "version", NULL, "print the version", "Other", show_version},
    {'h', "help", NULL, "this help", NULL, show_help},
};

#define NFLAGS (sizeof flags / sizeof flags[0])

void options_usage(void)
{
    fputs("Usage: arena-load [options] TARGET\n"
          "  TARGET                     http://127.0.0.1:PORT/path, http://[::1]:PORT/path,\n"
          "                             http://localhost:PORT/path or unix:/path/to.sock:/path;\n"
          "                             https://... for TLS\n",
          stdout);
    for (size_t i = 0; i < NFLAGS; i++) {
        const flag_t *f = &flags[i];
        if (f->section) printf("%s:\n", f->section);
        char left[64];
        int n = snprintf(left, sizeof left, "  %c%c%c --%s%s%s", f->short_name ? '-' : ' ',
                         f->short_name ? f->short_name : ' ', f->short_name ? ',' : ' ', f->name, f->arg ? " " : "",
                         f->arg ? f->arg : "");
        const char *h = f->help;
        printf("%s%*s", left, n < 29 ? 29 - n : 1, "");
        for (; *h; h++) {
            putchar(*h);
            if (*h == '\n') printf("%29s", "");
        }
        putchar('\n');
    }
    fputs("Durations accept a suffix: ms, s, m, h (e.g. 500ms, 2m).\n", stdout);
}

static const flag_t *find_long(const char *name, size_t len)
{
    for (size_t i = 0; i < NFLAGS; i++)
        if (strlen(flags[i].name) == len && !strncmp(flags[i].name, name, len)) return &flags[i];
    return NULL;
}

static const flag_t *find_short(char c)
{
    for (size_t i = 0; i < NFLAGS; i++)
        if (flags[i].short_name == c) return &flags[i];
    return NULL;
}

static int fail_with(char *err, size_t errlen, const char *fmt, const char *what)
{
    snprintf(err, errlen, fmt, what);
    return OPTIONS_ERROR;
}

int options_parse(options_t *o, int argc, char **argv, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->connections = 10;
    o->threads = 1;
    o->pipeline = 1;
    o->request_start_every = 1;
    o->keep_alive = 1;
    o->timeout_s = 5;
    o->connect_timeout_s = 2;
    o->json = -1;
    o->timeline_ms = 1000;
    o->expect_status = EXPECT_2XX_3XX;

    int only_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_positional || a[0] != '-' || a[1] == 0) {
            if (o->target) {
                snprintf(err, errlen, "more than one target ('%s' and '%s')", o->target, a);
                return OPTIONS_ERROR;
            }
            o->target = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_positional = 1;
            continue;
        }
        /* --name, --name=value, -x, -xVALUE */
        const flag_t *f;
        const char *value = NULL;
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            f = find_long(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
            if (eq) value = eq + 1;
        } else {
            f = find_short(a[1]);
            if (a[2]) value = a + 2;
        }
        if (!f) return fail_with(err, errlen, "unknown flag '%s'", a);
        if (!f->arg && value) return fail_with(err, errlen, "flag '%s' takes no value", a);
        if (f->arg && !value) {
            if (i + 1 >= argc) return fail_with(err, errlen, "flag '%s' needs a value", a);
            value = argv[++i];
        }
        int rc = f->set(o, value, err, errlen);
        if (rc < 0) return OPTIONS_ERROR;
        if (rc > 0) return OPTIONS_EXIT;
    }

    if (!o->target) {
        snprintf(err, errlen, "no target given (try --help)");
        return OPTIONS_ERROR;
    }
    if (o->profile.n) {
        if (o->rate > 0 || o->total || o->repetitions || o->duration_s > 0) {
            snprintf(err, errlen, "--profile sets the rate and the duration: not with -R, -n, -r or -d");
            return OPTIONS_ERROR;
        }
        if (o->warmup_s > 0) {
            snprintf(err, errlen, "--profile has no warm-up (-w): make its first stage one");
            return OPTIONS_ERROR;
        }
        o->duration_s = o->profile.total_s;
        o->rate = o->profile.total_n / o->profile.total_s;
    }
    if (o->rate > 0 && o->repetitions) {
        snprintf(err, errlen, "-r (repetitions per connection) is for the closed model, not with -R");
        return OPTIONS_ERROR;
    }
    if (!o->keep_alive && o->pipeline > 1) {
        snprintf(err, errlen, "-p (pipelining) needs keep-alive, not --no-keep-alive");
        return OPTIONS_ERROR;
    }
    if (o->mix_file && (o->expect_body || o->expect_status != EXPECT_2XX_3XX)) {
        snprintf(err, errlen, "--expect-status/--expect-body are per line in the mix file, not with --mix");
        return OPTIONS_ERROR;
    }
    if (o->h2_streams && !o->http2) {
        snprintf(err, errlen, "--h2-streams is for HTTP/2: add --http2");
        return OPTIONS_ERROR;
    }
    if (o->http2 && o->pipeline > 1) {
        snprintf(err, errlen, "-p (pipelining) is HTTP/1.1's: with --http2 use --h2-streams");
        return OPTIONS_ERROR;
    }
    if (o->http2 && !o->h2_streams) o->h2_streams = 1;
    /* Every run is bounded. */
    if (o->duration_s == 0 && o->total == 0 && o->repetitions == 0) o->duration_s = 10;
    /* A thread per CPU the engine is given: more would only share a core. */
    if (!o->threads_given && o->ncpus > 1) o->threads = o->ncpus;
    if (o->threads > o->connections) o->threads = o->connections;
    if (!o->method) o->method = o->body_file ? "POST" : "GET";
    return OPTIONS_RUN;
}
