/* Feeds a byte stream of responses to the parser in pieces and records what
 * it saw. Used by the parser tests and the fuzzers: the outcome must not
 * depend on where the stream is cut. */
#ifndef ARENA_REPLAY_H
#define ARENA_REPLAY_H

#include "parser.h"

#include <stdlib.h>
#include <string.h>

#define REPLAY_MAX 64

typedef struct {
    int n;
    int status[REPLAY_MAX];
    unsigned long long body[REPLAY_MAX];
    int keep_alive[REPLAY_MAX];
    int matched[REPLAY_MAX];
    int error;
    const char *why;    /* the parser's reason, once error is set */
    size_t error_at;    /* bytes consumed in all when the error was seen */
    int invariant_broken;
    int incomplete;     /* bytes of a response that never finished */
} replay_result;

/* cuts: sorted offsets where the stream is split (may repeat or be 0/len).
 * head_mask[i] == 'H': response i answers a HEAD request. */
/* One finished response, kept (up to REPLAY_MAX) and counted. */
static void replay_record(replay_result *out, const http_parser *p)
{
    if (out->n < REPLAY_MAX) {
        out->status[out->n] = p->status;
        out->body[out->n] = p->body_bytes;
        out->keep_alive[out->n] = p->keep_alive;
        out->matched[out->n] = p->matched;
    }
    out->n++;
}

static void replay(const char *data, size_t len, const size_t *cuts, size_t ncuts, const char *head_mask,
                   const body_expect *expect, int eof, replay_result *out)
{
    http_parser p;
    size_t mask_len = head_mask ? strlen(head_mask) : 0;
    memset(out, 0, sizeof *out);
    http_parser_reset(&p, mask_len > 0 && head_mask[0] == 'H', expect);
    /* One buffer for every piece, each copied to its end: a read past a
     * piece's end lands in ASan's redzone, and the replay stays linear in
     * the stream (no allocation per piece: byte-by-byte costs len copies). */
    size_t widest = 1, prev = 0;
    for (size_t k = 0; k <= ncuts; k++) {
        size_t end = k < ncuts ? (cuts[k] > len ? len : cuts[k]) : len;
        if (end >= prev) {
            if (end - prev > widest) widest = end - prev;
            prev = end;
        }
    }
    char *buf = malloc(widest);
    size_t pos = 0, total = 0;
    for (size_t k = 0; k <= ncuts && !out->error; k++) {
        size_t end = k < ncuts ? cuts[k] : len;
        if (end > len) end = len;
        if (end < pos) continue;
        size_t plen = end - pos;
        char *piece = buf + (widest - plen);
        memcpy(piece, data + pos, plen);
        size_t off = 0;
        while (off < plen) {
            size_t used = http_parser_feed(&p, piece + off, plen - off);
            if (used > plen - off) out->invariant_broken = 1;
            off += used;
            total += used;
            if (p.state == HP_DONE) {
                replay_record(out, &p);
                size_t i = (size_t)out->n;
                http_parser_reset(&p, i < mask_len && head_mask[i] == 'H', expect);
            } else if (p.state == HP_ERROR) {
                out->error = 1;
                out->why = p.error;
                out->error_at = total;
                break;
            } else if (used == 0) {
                out->invariant_broken = 1; /* busy but made no progress */
                break;
            }
        }
        pos = end;
    }
    free(buf);
    if (!out->error && eof && http_parser_eof(&p)) {
        replay_record(out, &p);
    } else if (!out->error && p.state == HP_BUSY && p.nread > 0) {
        out->incomplete = 1;
    }
    if (total > len) out->invariant_broken = 1;
}

static int replay_equal(const replay_result *a, const replay_result *b)
{
    if (a->n != b->n || a->error != b->error || a->error_at != b->error_at) return 0;
    int n = a->n < REPLAY_MAX ? a->n : REPLAY_MAX;
    for (int i = 0; i < n; i++)
        if (a->status[i] != b->status[i] || a->body[i] != b->body[i] || a->keep_alive[i] != b->keep_alive[i] ||
            a->matched[i] != b->matched[i])
            return 0;
    return 1;
}

#endif
