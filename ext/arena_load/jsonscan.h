/* A small JSON reader, enough for the engine's own documents (a histogram's
 * encoding, the documents --merge reads): it finds members by key inside a
 * span without building a tree. Numbers are read as the engine writes them.
 */
#ifndef ARENA_JSONSCAN_H
#define ARENA_JSONSCAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *p, *end;
} js_span_t;

const char *js_skip_ws(const char *p, const char *end);
/* p at '{' or '[': returns just past the matching close, or NULL. */
const char *js_skip_nested(const char *p, const char *end);
/* The value of key among obj's own members (not nested ones); obj spans
 * '{'..'}'. Returns 0 and the value's start in *val, or -1. */
int js_member(js_span_t obj, const char *key, const char **val);
/* The member's value when it starts with open ('{' or '['), as a span. */
int js_member_span(js_span_t obj, const char *key, char open, js_span_t *out);
/* A non-negative integer member. */
int js_member_u64(js_span_t obj, const char *key, uint64_t *out);
/* A non-negative number member. */
int js_member_double(js_span_t obj, const char *key, double *out);

#endif
