#include "mix.h"
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *next_field(char **s)
{
    char *p = *s;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) return NULL;
    char *start = p;
    while (*p && *p != ' ' && *p != '\t') p++;
    if (*p) *p++ = 0;
    *s = p;
    return start;
}

int mix_parse_line(char *line, mix_line *out, char *err, size_t errlen)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t')) line[--n] = 0;
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s || *s == '#') return 0;

    char *w = next_field(&s), *method = next_field(&s), *path = next_field(&s), *status = next_field(&s);
    if (!w || !method || !path || !status) {
        snprintf(err, errlen, "expected 'weight method path expected_status [body substring]'");
        return -1;
    }
    char *end;
    char *name = strchr(w, ':');
    if (name) {
        *name++ = 0;
        if (!*name || strlen(name) > 200) {
            snprintf(err, errlen, "bad request name after '%s:'", w);
            return -1;
        }
        for (char *q = name; *q; q++)
            if (!isalnum((unsigned char)*q) && !strchr("_.-", *q)) {
                snprintf(err, errlen, "bad request name '%s': letters, digits, '_', '.', '-'", name);
                return -1;
            }
    }
    errno = 0;
    unsigned long weight = strtoul(w, &end, 10);
    if (errno || *end || !isdigit((unsigned char)*w) || weight == 0 || weight > 1000000) {
        snprintf(err, errlen, "bad weight '%s'", w);
        return -1;
    }
    for (char *q = method; *q; q++)
        if (!isalnum((unsigned char)*q) && !strchr("!#$%&'*+-.^_`|~", *q)) {
            snprintf(err, errlen, "bad method '%s'", method);
            return -1;
        }
    if (path[0] != '/' && strcmp(path, "*") != 0) {
        snprintf(err, errlen, "bad path '%s': must start with '/'", path);
        return -1;
    }
    int st;
    if (!strcmp(status, "*") || !strcmp(status, "any") || !strcmp(status, "-")) {
        st = EXPECT_ANY;
    } else if (!strcmp(status, "2xx")) {
        st = EXPECT_2XX_3XX;
    } else {
        errno = 0;
        long v = strtol(status, &end, 10);
        if (errno || *end || !isdigit((unsigned char)*status) || v < 100 || v > 999) {
            snprintf(err, errlen, "bad expected status '%s'", status);
            return -1;
        }
        st = (int)v;
    }
    while (*s == ' ' || *s == '\t') s++;
    out->weight = (uint32_t)weight;
    out->name = name;
    out->method = method;
    out->path = path;
    out->expect_status = st;
    out->expect_body = *s ? s : NULL;
    return 1;
}

int mix_load(mix_t *m, const char *file, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read mix file '%s': %s", file, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0, alloc = 0;
    ssize_t got;
    int lineno = 0;
    while ((got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (memchr(line, 0, (size_t)got)) {
            snprintf(err, errlen, "mix file %s:%d: NUL byte", file, lineno);
            goto fail;
        }
        mix_line ml;
        char why[200];
        int rc = mix_parse_line(line, &ml, why, sizeof why);
        if (rc < 0) {
            snprintf(err, errlen, "mix file %s:%d: %s", file, lineno, why);
            goto fail;
        }
        if (rc == 0) continue;
        if (m->n == alloc) {
            alloc = alloc ? alloc * 2 : 8;
            if (alloc > 65536) {
                snprintf(err, errlen, "mix file %s: too many lines", file);
                goto fail;
            }
            mix_line *nl = realloc(m->lines, alloc * sizeof *nl);
            if (!nl) goto oom;
            m->lines = nl;
        }
        ml.name = ml.name ? strdup(ml.name) : NULL;
        ml.method = strdup(ml.method);
        ml.path = strdup(ml.path);
        ml.expect_body = ml.expect_body ? strdup(ml.expect_body) : NULL;
        m->lines[m->n++] = ml;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "cannot read mix file '%s': %s", file, strerror(errno));
        goto fail;
    }
    free(line);
    fclose(f);
    if (m->n == 0) {
        snprintf(err, errlen, "mix file '%s' has no requests", file);
        mix_free(m);
        return -1;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory reading mix file");
fail:
    free(line);
    fclose(f);
    mix_free(m);
    return -1;
}

void mix_free(mix_t *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->lines[i].name);
        free(m->lines[i].method);
        free(m->lines[i].path);
        free(m->lines[i].expect_body);
    }
    free(m->lines);
    m->lines = NULL;
    m->n = 0;
}
