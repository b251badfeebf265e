#include "jsonscan.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *js_skip_ws(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p)) p++;
    return p;
}

/* p at a '"': returns just past the closing quote, or NULL. */
static const char *js_skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\') p++;
        else if (*p == '"') return p + 1;
    }
    return NULL;
}

/* p at '{' or '[': returns just past the matching close, or NULL. */
const char *js_skip_nested(const char *p, const char *end)
{
    int depth = 0;
    while (p < end) {
        if (*p == '"') {
            p = js_skip_string(p, end);
            if (!p) return NULL;
            continue;
        }
        if (*p == '{' || *p == '[') depth++;
        if (*p == '}' || *p == ']') {
            if (--depth == 0) return p + 1;
        }
        p++;
    }
    return NULL;
}

/* The value of key among obj's own members (not nested ones); obj spans
 * '{'..'}'. Returns 0 and the value's start in *val, or -1. */
int js_member(js_span_t obj, const char *key, const char **val)
{
    const char *p = obj.p + 1, *end = obj.end;
    size_t klen = strlen(key);
    while (p < end) {
        p = js_skip_ws(p, end);
        if (p >= end || *p == '}') return -1;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p != '"') return -1;
        const char *kend = js_skip_string(p, end);
        if (!kend) return -1;
        int match = (size_t)(kend - p - 2) == klen && !memcmp(p + 1, key, klen);
        p = js_skip_ws(kend, end);
        if (p >= end || *p != ':') return -1;
        p = js_skip_ws(p + 1, end);
        if (match) {
            *val = p;
            return 0;
        }
        if (*p == '{' || *p == '[') p = js_skip_nested(p, end);
        else if (*p == '"') p = js_skip_string(p, end);
        else
            while (p < end && *p != ',' && *p != '}') p++;
        if (!p) return -1;
    }
    return -1;
}

int js_member_span(js_span_t obj, const char *key, char open, js_span_t *out)
{
    const char *v;
    if (js_member(obj, key, &v) < 0 || *v != open) return -1;
    const char *e = js_skip_nested(v, obj.end);
    if (!e) return -1;
    out->p = v;
    out->end = e;
    return 0;
}

int js_member_u64(js_span_t obj, const char *key, uint64_t *out)
{
    const char *v;
    if (js_member(obj, key, &v) < 0 || !isdigit((unsigned char)*v)) return -1;
    errno = 0;
    char *e;
    unsigned long long n = strtoull(v, &e, 10);
    if (errno || (*e != ',' && *e != '}' && !isspace((unsigned char)*e))) return -1;
    *out = n;
    return 0;
}

int js_member_double(js_span_t obj, const char *key, double *out)
{
    const char *v;
    if (js_member(obj, key, &v) < 0) return -1;
    char *e;
    errno = 0;
    *out = strtod(v, &e);
    if (errno || e == v || *out < 0) return -1;
    return 0;
}
