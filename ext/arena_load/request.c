#include "request.h"
#include "mix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int read_file(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read body file '%s': %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            snprintf(err, errlen, "out of memory reading '%s'", path);
            return -1;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        if (cap >= ((size_t)1 << 30)) {
            free(buf);
            fclose(f);
            snprintf(err, errlen, "body file '%s' is too large", path);
            return -1;
        }
        cap *= 2;
        char *nb = realloc(buf, cap);
        if (!nb) free(buf);
        buf = nb;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "cannot read body file '%s': %s", path, strerror(errno));
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    *out = buf;
    *len = n;
    return 0;
}

static int has_header(const options_t *o, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < o->nheaders; i++)
        if (strncasecmp(o->headers[i], name, n) == 0 && o->headers[i][n] == ':') return 1;
    return 0;
}

static int method_takes_body(const char *m)
{
    return !strcmp(m, "POST") || !strcmp(m, "PUT") || !strcmp(m, "PATCH");
}

static int build_one(request_t *r, const options_t *o, const target_t *t, const char *method, const char *path,
                     const char *body, size_t body_len)
{
    size_t cap = strlen(method) + strlen(path) + strlen(t->host_header) + body_len + 256;
    for (int i = 0; i < o->nheaders; i++) cap += strlen(o->headers[i]) + 2;
    char *b = malloc(cap);
    if (!b) return -1;
    size_t n = 0;
    n += (size_t)snprintf(b + n, cap - n, "%s %s HTTP/1.1\r\n", method, path);
    if (!has_header(o, "Host")) n += (size_t)snprintf(b + n, cap - n, "Host: %s\r\n", t->host_header);
    for (int i = 0; i < o->nheaders; i++) n += (size_t)snprintf(b + n, cap - n, "%s\r\n", o->headers[i]);
    if (body && !has_header(o, "Content-Length"))
        n += (size_t)snprintf(b + n, cap - n, "Content-Length: %zu\r\n", body_len);
    if (!o->keep_alive && !has_header(o, "Connection")) n += (size_t)snprintf(b + n, cap - n, "Connection: close\r\n");
    r->ts_off = 0;
    if (o->request_start) {
        /* Its digits are each request's send time, written into the slot and
         * sent in their place (conn_flush): the bytes here stay shared. */
        n += (size_t)snprintf(b + n, cap - n, "X-Request-Start: t=");
        r->ts_off = n;
        n += (size_t)snprintf(b + n, cap - n, "%0*d\r\n", REQUEST_TS_DIGITS, 0);
    }
    n += (size_t)snprintf(b + n, cap - n, "\r\n");
    if (body) {
        memcpy(b + n, body, body_len);
        n += body_len;
    }
    r->bytes = b;
    r->len = n;
    r->is_head = !strcmp(method, "HEAD");
    return 0;
}

static int set_expect(request_t *r, int status, const char *body)
{
    r->expect_status = status;
    memset(&r->expect, 0, sizeof r->expect);
    if (body && *body) {
        size_t len = strlen(body);
        char *needle = strdup(body);
        uint32_t *fail = malloc(len * sizeof *fail);
        if (!needle || !fail) {
            free(needle);
            free(fail);
            return -1;
        }
        body_expect_init(&r->expect, needle, len, fail);
    }
    return 0;
}

/* Lines that share a name are one request of the mix; a line without a
 * name is one of its own. */
static int group_lines(request_set *rs, const mix_t *m)
{
    rs->group_names = calloc(REQ_MAX_GROUPS, sizeof *rs->group_names);
    rs->group_weight = calloc(REQ_MAX_GROUPS, sizeof *rs->group_weight);
    if (!rs->group_names || !rs->group_weight) return -1;
    for (size_t i = 0; i < m->n; i++) {
        const mix_line *l = &m->lines[i];
        size_t g = rs->ngroups;
        if (l->name)
            for (g = 0; g < rs->ngroups; g++)
                if (!strcmp(rs->group_names[g], l->name)) break;
        if (g == rs->ngroups) {
            if (rs->ngroups == REQ_MAX_GROUPS) {
                rs->ngroups = 0; /* too many to report apart */
                return 0;
            }
            size_t len = l->name ? strlen(l->name) + 1 : strlen(l->method) + strlen(l->path) + 2;
            char *label = malloc(len);
            if (!label) return -1;
            if (l->name) memcpy(label, l->name, len);
            else snprintf(label, len, "%s %s", l->method, l->path);
            rs->group_names[rs->ngroups++] = label;
        }
        rs->reqs[i].group = (uint32_t)g;
        rs->group_weight[g] += l->weight;
    }
    return 0;
}

int requests_build(request_set *rs, const options_t *o, const target_t *t, char *err, size_t errlen)
{
    memset(rs, 0, sizeof *rs);
    char *body = NULL;
    size_t body_len = 0;
    if (o->body_file && read_file(o->body_file, &body, &body_len, err, errlen) < 0) return -1;

    if (o->mix_file) {
        mix_t m;
        if (mix_load(&m, o->mix_file, err, errlen) < 0) {
            free(body);
            return -1;
        }
        rs->reqs = calloc(m.n, sizeof *rs->reqs);
        if (!rs->reqs) goto oom_mix;
        for (size_t i = 0; i < m.n; i++) {
            const mix_line *l = &m.lines[i];
            int with_body = body && method_takes_body(l->method);
            if (build_one(&rs->reqs[i], o, t, l->method, l->path, with_body ? body : NULL, body_len) < 0) goto oom_mix;
            rs->n = i + 1;
            if (set_expect(&rs->reqs[i], l->expect_status, l->expect_body) < 0) goto oom_mix;
            rs->total_weight += l->weight;
            rs->reqs[i].cum_weight = rs->total_weight;
        }
        if (group_lines(rs, &m) < 0) goto oom_mix;
        mix_free(&m);
        free(body);
        return 0;
    oom_mix:
        mix_free(&m);
        free(body);
        requests_free(rs);
        snprintf(err, errlen, "out of memory building requests");
        return -1;
    }

    rs->reqs = calloc(1, sizeof *rs->reqs);
    if (!rs->reqs || build_one(&rs->reqs[0], o, t, o->method, t->path, body, body_len) < 0 ||
        set_expect(&rs->reqs[0], o->expect_status, o->expect_body) < 0) {
        free(body);
        requests_free(rs);
        snprintf(err, errlen, "out of memory building requests");
        return -1;
    }
    rs->n = 1;
    rs->total_weight = 1;
    rs->reqs[0].cum_weight = 1;
    free(body);
    return 0;
}

void requests_free(request_set *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        free(rs->reqs[i].bytes);
        free((char *)rs->reqs[i].expect.needle);
        free((uint32_t *)rs->reqs[i].expect.fail);
    }
    free(rs->reqs);
    rs->reqs = NULL;
    rs->n = 0;
    if (rs->group_names)
        for (size_t g = 0; g < REQ_MAX_GROUPS; g++) free(rs->group_names[g]);
    free(rs->group_names);
    free(rs->group_weight);
    rs->group_names = NULL;
    rs->group_weight = NULL;
    rs->ngroups = 0;
}
