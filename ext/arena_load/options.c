#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void options_usage(void)
{
    fputs(
        "Usage: arena-load [options] TARGET\n"
        "  TARGET                 http://127.0.0.1:PORT/path, http://[::1]:PORT/path,\n"
        "                         http://localhost:PORT/path or unix:/path/to.sock:/path\n"
        "Load:\n"
        "  -c, --connections N    connections to keep open (default 10)\n"
        "  -t, --threads N        threads, each with its own epoll loop (default 1)\n"
        "      --cpus LIST        pin threads to these CPUs, e.g. 1 or 0,2 or 2-3\n"
        "  -d, --duration SEC     length of the counted phase (default 10 when no -n/-r)\n"
        "  -n, --requests N       stop after N requests in total\n"
        "  -r, --repetitions N    requests per connection, then stop (closed model)\n"
        "  -w, --warmup SEC       warm-up before the counted phase (not counted)\n"
        "  -R, --rate RATE        open model: RATE requests/s on a constant schedule;\n"
        "                         latency from each request's intended start\n"
        "  -p, --pipeline N       requests in flight per connection (default 1)\n"
        "      --no-keep-alive    a new connection for every request\n"
        "Requests:\n"
        "  -m, --method METHOD    request method (default GET, POST with --body)\n"
        "  -H, --header 'N: V'    add a request header (repeatable)\n"
        "      --body FILE        request body read from FILE\n"
        "      --mix FILE         request mix: lines 'weight method path status [body substring]'\n"
        "      --expect-status N  status a response must have (default: any 2xx or 3xx; 'any')\n"
        "      --expect-body STR  substring the response body must contain\n"
        "Timing:\n"
        "      --timeout SEC      response timeout (default 5)\n"
        "      --connect-timeout SEC  connect timeout (default 2)\n"
        "Output:\n"
        "      --json             one JSON document (default when stdout is not a terminal)\n"
        "      --human            a human summary (default on a terminal)\n"
        "      --timeline-ms N    timeline interval in milliseconds (default 1000)\n"
        "      --allow-remote     allow addresses outside 127.0.0.0/8 and ::1\n"
        "      --histograms       add the encoded latency histograms (whole run, per second)\n"
        "      --wait-go          print 'ready' on stderr, start on a line 'go' on stdin\n"
        "      --merge FILE...    merge engine JSON documents (written with --histograms)\n"
        "      --version, -h, --help\n"
        "Durations accept a suffix: ms, s, m, h (e.g. 500ms, 2m).\n",
        stdout);
}

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

/* Flags that take a value, with their long names. */
static const struct {
    char short_name;
    const char *long_name;
} valued[] = {
    {'c', "connections"}, {'t', "threads"}, {'d', "duration"}, {'n', "requests"},
    {'r', "repetitions"}, {'w', "warmup"}, {'R', "rate"}, {'p', "pipeline"},
    {'H', "header"}, {'m', "method"}, {0, "cpus"}, {0, "body"}, {0, "mix"},
    {0, "timeout"}, {0, "connect-timeout"}, {0, "expect-status"}, {0, "expect-body"}, {0, "timeline-ms"},
};

static int valid_token(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s)) return 0;
    return 1;
}

static int apply(options_t *o, const char *name, const char *v, char *err, size_t errlen)
{
    uint64_t u;
#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
    if (!strcmp(name, "c") || !strcmp(name, "connections")) {
        if (parse_uint(v, 1000000, &u) || u == 0) BAD("bad connection count '%s'", v);
        o->connections = (int)u;
    } else if (!strcmp(name, "t") || !strcmp(name, "threads")) {
        if (parse_uint(v, 1024, &u) || u == 0) BAD("bad thread count '%s'", v);
        o->threads = (int)u;
    } else if (!strcmp(name, "d") || !strcmp(name, "duration")) {
        if (parse_seconds(v, &o->duration_s) || o->duration_s <= 0) BAD("bad duration '%s'", v);
    } else if (!strcmp(name, "w") || !strcmp(name, "warmup")) {
        if (parse_seconds(v, &o->warmup_s)) BAD("bad warm-up '%s'", v);
    } else if (!strcmp(name, "n") || !strcmp(name, "requests")) {
        if (parse_uint(v, UINT64_MAX / 4, &u) || u == 0) BAD("bad request count '%s'", v);
        o->total = u;
    } else if (!strcmp(name, "r") || !strcmp(name, "repetitions")) {
        if (parse_uint(v, UINT64_MAX / 4, &u) || u == 0) BAD("bad repetition count '%s'", v);
        o->repetitions = u;
    } else if (!strcmp(name, "R") || !strcmp(name, "rate")) {
        char *end;
        errno = 0;
        o->rate = strtod(v, &end);
        if (errno || end == v || *end || !isfinite(o->rate) || o->rate <= 0 || o->rate > 1e8) BAD("bad rate '%s'", v);
    } else if (!strcmp(name, "p") || !strcmp(name, "pipeline")) {
        if (parse_uint(v, 1024, &u) || u == 0) BAD("bad pipeline depth '%s'", v);
        o->pipeline = (int)u;
    } else if (!strcmp(name, "H") || !strcmp(name, "header")) {
        const char *colon = strchr(v, ':');
        if (!colon || colon == v || strpbrk(v, "\r\n")) BAD("bad header '%s': expected 'Name: value'", v);
        for (const char *q = v; q < colon; q++)
            if (!isalnum((unsigned char)*q) && !strchr("!#$%&'*+-.^_`|~", *q)) BAD("bad header name in '%s'", v);
        if (o->nheaders >= MAX_HEADERS) BAD("too many headers (at most %d)", MAX_HEADERS);
        o->headers[o->nheaders++] = v;
    } else if (!strcmp(name, "m") || !strcmp(name, "method")) {
        if (!valid_token(v)) BAD("bad method '%s'", v);
        o->method = v;
    } else if (!strcmp(name, "cpus")) {
        if (parse_cpus(o, v)) BAD("bad CPU list '%s'", v);
    } else if (!strcmp(name, "body")) {
        o->body_file = v;
    } else if (!strcmp(name, "mix")) {
        o->mix_file = v;
    } else if (!strcmp(name, "timeout")) {
        if (parse_seconds(v, &o->timeout_s) || o->timeout_s <= 0) BAD("bad timeout '%s'", v);
    } else if (!strcmp(name, "connect-timeout")) {
        if (parse_seconds(v, &o->connect_timeout_s) || o->connect_timeout_s <= 0) BAD("bad connect timeout '%s'", v);
    } else if (!strcmp(name, "expect-status")) {
        if (!strcmp(v, "any") || !strcmp(v, "*")) {
            o->expect_status = EXPECT_ANY;
        } else {
            if (parse_uint(v, 999, &u) || u < 100) BAD("bad expected status '%s'", v);
            o->expect_status = (int)u;
        }
    } else if (!strcmp(name, "timeline-ms")) {
        if (parse_uint(v, 3600000, &u) || u == 0) BAD("bad timeline interval '%s' (milliseconds, 1..3600000)", v);
        o->timeline_ms = u;
    } else if (!strcmp(name, "expect-body")) {
        if (!*v) BAD("empty --expect-body");
        o->expect_body = v;
    } else {
        BAD("unknown flag '%s'", name);
    }
    return 0;
#undef BAD
}

int options_parse(options_t *o, int argc, char **argv, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->connections = 10;
    o->threads = 1;
    o->pipeline = 1;
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
        if (!strcmp(a, "--")) { only_positional = 1; continue; }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { options_usage(); return OPTIONS_EXIT; }
        if (!strcmp(a, "--version") || !strcmp(a, "-V")) { printf("arena-load %s\n", ARENA_VERSION); return OPTIONS_EXIT; }
        if (!strcmp(a, "--json")) { o->json = 1; continue; }
        if (!strcmp(a, "--human")) { o->json = 0; continue; }
        if (!strcmp(a, "--no-keep-alive")) { o->keep_alive = 0; continue; }
        if (!strcmp(a, "--allow-remote")) { o->allow_remote = 1; continue; }
        if (!strcmp(a, "--histograms")) { o->histograms = 1; continue; }
        if (!strcmp(a, "--wait-go")) { o->wait_go = 1; continue; }

        char name[32];
        const char *value = NULL;
        int known = 0;
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            if (n >= sizeof name) n = sizeof name - 1;
            memcpy(name, a + 2, n);
            name[n] = 0;
            if (eq) value = eq + 1;
            for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
                if (!strcmp(valued[k].long_name, name)) known = 1;
            if (!known) {
                snprintf(err, errlen, "unknown flag '%s'", a);
                return OPTIONS_ERROR;
            }
        } else {
            name[0] = a[1];
            name[1] = 0;
            for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
                if (valued[k].short_name == a[1]) known = 1;
            if (!known) {
                snprintf(err, errlen, "unknown flag '%s'", a);
                return OPTIONS_ERROR;
            }
            if (a[2]) value = a + 2;
        }
        if (!value) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "flag '%s' needs a value", a);
                return OPTIONS_ERROR;
            }
            value = argv[++i];
        }
        if (apply(o, name, value, err, errlen) < 0) return OPTIONS_ERROR;
    }

    if (!o->target) {
        snprintf(err, errlen, "no target given (try --help)");
        return OPTIONS_ERROR;
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
    /* Every run is bounded. */
    if (o->duration_s == 0 && o->total == 0 && o->repetitions == 0) o->duration_s = 10;
    if (o->threads > o->connections) o->threads = o->connections;
    if (!o->method) o->method = o->body_file ? "POST" : "GET";
    return OPTIONS_RUN;
}
