/* The response corpus (test/corpus/responses.txt, derived from the
 * categories of llhttp's response tests) through the engine's parser, whole
 * and byte by byte: each case's responses, and its refusals with the
 * parser's reason.
 *   test_corpus [FILE]        check every case; "N passed, M failed"
 *   test_corpus --list FILE   one line a case: name TAB outcome TAB reason
 *                             (for the Ruby probe's cross-check) */
#include "check.h"
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char name[128];
    char expect[256];
    int eof, head;
    char *data;
    size_t len, cap;
} corpus_case;

static void append(corpus_case *c, const char *bytes, size_t n)
{
    if (c->len + n + 1 > c->cap) {
        c->cap = (c->len + n + 1) * 2;
        c->data = realloc(c->data, c->cap);
    }
    memcpy(c->data + c->len, bytes, n);
    c->len += n;
}

/* TEXT with \r \n \t \\ \0 \xHH into bytes. */
static size_t unescape(const char *s, char *out)
{
    size_t n = 0;
    for (; *s && *s != '\n'; s++) {
        if (*s != '\\' || !s[1]) { out[n++] = *s; continue; }
        s++;
        switch (*s) {
        case 'r': out[n++] = '\r'; break;
        case 'n': out[n++] = '\n'; break;
        case 't': out[n++] = '\t'; break;
        case '0': out[n++] = '\0'; break;
        case 'x': {
            char hex[3] = {s[1], s[2], 0};
            out[n++] = (char)strtol(hex, NULL, 16);
            s += 2;
            break;
        }
        default: out[n++] = *s;
        }
    }
    return n;
}

static int load(const char *file, corpus_case **cases)
{
    FILE *f = fopen(file, "r");
    if (!f) return -1;
    int n = 0, cap = 0;
    char line[8192], bytes[8192];
    corpus_case *c = NULL;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "== ", 3) == 0) {
            if (n == cap) *cases = realloc(*cases, (size_t)(cap = cap ? cap * 2 : 64) * sizeof **cases);
            c = &(*cases)[n++];
            memset(c, 0, sizeof *c);
            snprintf(c->name, sizeof c->name, "%.*s", (int)strcspn(line + 3, "\n"), line + 3);
        } else if (!c) {
            continue;
        } else if (strncmp(line, "expect: ", 8) == 0) {
            snprintf(c->expect, sizeof c->expect, "%.*s", (int)strcspn(line + 8, "\n"), line + 8);
        } else if (strncmp(line, "flags: ", 7) == 0) {
            c->eof = strstr(line, "eof") != NULL;
            c->head = strstr(line, "head") != NULL;
        } else if (strncmp(line, "> ", 2) == 0) {
            append(c, bytes, unescape(line + 2, bytes));
        } else if (strncmp(line, "@ ", 2) == 0) {
            char *rest;
            long times = strtol(line + 2, &rest, 10);
            size_t k = unescape(rest + 1, bytes);
            for (long i = 0; i < times; i++) append(c, bytes, k);
        }
    }
    fclose(f);
    return n;
}

/* "200/5/ka 204/0/close error" from what the parser saw. */
static void outcome(const replay_result *r, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < r->n && i < REPLAY_MAX; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%d/%llu/%s", used ? " " : "", r->status[i], r->body[i],
                                 r->keep_alive[i] ? "ka" : "close");
    if (r->error) snprintf(out + used, cap - used, "%serror", used ? " " : "");
    else if (!r->n || r->incomplete) snprintf(out + used, cap - used, "%sincomplete", used ? " " : "");
}

static void run(const corpus_case *c, replay_result *whole, replay_result *bytewise)
{
    const char *mask = c->head ? "H" : ".";
    replay(c->data, c->len, NULL, 0, mask, NULL, c->eof, whole);
    size_t *cuts = malloc((c->len + 1) * sizeof *cuts);
    for (size_t i = 0; i <= c->len; i++) cuts[i] = i;
    replay(c->data, c->len, cuts, c->len + 1, mask, NULL, c->eof, bytewise);
    free(cuts);
}

int main(int argc, char **argv)
{
    int list = argc > 2 && strcmp(argv[1], "--list") == 0;
    const char *file = argc > 1 ? argv[argc - 1] : "test/corpus/responses.txt";
    corpus_case *cases = NULL;
    int n = load(file, &cases);
    if (n <= 0) {
        fprintf(stderr, "test_corpus: cannot read %s\n", file);
        return 2;
    }
    for (int i = 0; i < n; i++) {
        replay_result whole, bytewise;
        char got[512];
        run(&cases[i], &whole, &bytewise);
        outcome(&whole, got, sizeof got);
        if (list) {
            printf("%s\t%s\t%s\n", cases[i].name, got, whole.error ? whole.why : "");
            free(cases[i].data);
            continue;
        }
        if (strcmp(got, cases[i].expect) != 0) fprintf(stderr, "  %s: expected \"%s\", got \"%s\" (%s)\n", cases[i].name,
                                                       cases[i].expect, got, whole.why ? whole.why : "");
        CHECK(strcmp(got, cases[i].expect) == 0, "%s", cases[i].name);
        CHECK(replay_equal(&whole, &bytewise) && !whole.invariant_broken && !bytewise.invariant_broken, "%s: byte by byte", cases[i].name);
        free(cases[i].data);
    }
    free(cases);
    if (list) return 0;
    return finish();
}
