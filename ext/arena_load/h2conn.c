/* HTTP/2 on a connection (see h2.h): the slot ring of conn.c holds the
 * requests in flight, one stream each; a stream that ends is taken out of the
 * ring wherever it is (its slot swapped with the head's), since streams end
 * in any order. The open-model schedule, the timeouts and the figures see
 * slots as they do over HTTP/1.1: --h2-streams is the depth. */
#ifdef ARENA_H2
#include "h2.h"
#include "loop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define H2_WINDOW (16u << 20) /* large bodies are not held back by a small window */

static h2_req *reqs;
static size_t nreqs;

int h2_requests_build(const void *set, const char *scheme)
{
    const request_set *rs = set;
    if (h2s_init() < 0) return -1;
    reqs = calloc(rs->n, sizeof *reqs);
    if (!reqs) return -1;
    nreqs = rs->n;
    for (size_t i = 0; i < rs->n; i++)
        if (h2_req_from_http1(&reqs[i], rs->reqs[i].bytes, rs->reqs[i].len, scheme, &rs->reqs[i].expect) < 0) return -1;
    return 0;
}

void h2_requests_free(void)
{
    for (size_t i = 0; reqs && i < nreqs; i++) h2_req_free(&reqs[i]);
    free(reqs);
    reqs = NULL;
    nreqs = 0;
}

/* Frames are gathered before they are written: nghttp2 hands them out one
 * at a time, and one write (one TLS record) per frame would cost a system
 * call and a record for every HEADERS, DATA and WINDOW_UPDATE. */
#define H2_WBUF 16384

typedef struct {
    h2sess_t *s;
    loop_t *L;
    conn_t *c;
    size_t wlen, woff;   /* bytes gathered in wbuf, and already written */
    uint8_t wbuf[H2_WBUF];
} h2conn_t;

static uint32_t find_slot(loop_t *L, conn_t *c, int32_t stream)
{
    for (uint32_t i = 0; i < c->count; i++)
        if (slot_at(L, c, i)->stream == stream) return i;
    return UINT32_MAX;
}

/* Takes slot i out of the ring: the head's slot moves into its place. */
static void remove_slot(loop_t *L, conn_t *c, uint32_t i)
{
    slot_t *s = slot_at(L, c, i);
    *s = *slot_at(L, c, 0);
    c->head = (c->head + 1) % L->depth;
    c->count--;
    c->written--;
    L->inflight--;
    conn_level_update(L, c);
}

static void on_stream(void *ud, int32_t stream, int what, int status, int matched, int kind)
{
    h2conn_t *h = ud;
    loop_t *L = h->L;
    conn_t *c = h->c;
    uint32_t i = find_slot(L, c, stream);
    if (i == UINT32_MAX) return;
    slot_t *s = slot_at(L, c, i);
    if (what == H2_RETRY) {
        s->stream = -1; /* never processed: sent again when the connection ends */
        return;
    }
    if (what == H2_RESPONSE) {
        account_response(L, s, status, matched);
        c->fails = 0;
        c->backoff_ms = 0;
        L->last_progress = L->now;
        c->served++;
    } else {
        count_error(L, kind, s->t);
    }
    remove_slot(L, c, i);
}

static const h2_hooks hooks = {on_stream};

/* After the handshake: the session, whose preface and SETTINGS go out with
 * the first flush. */
static int h2_start(loop_t *L, conn_t *c)
{
    h2conn_t *h = calloc(1, sizeof *h);
    if (h) h->s = h2s_new(&hooks, h, H2_WINDOW);
    if (!h || !h->s) {
        free(h);
        conn_fail(L, c, ERR_CONNECT_REFUSED);
        return -1;
    }
    h->L = L;
    h->c = c;
    c->h2 = h;
    return 0;
}

static void h2_close(conn_t *c)
{
    h2conn_t *h = c->h2;
    if (!h) return;
    h2s_free(h->s);
    free(h);
    c->h2 = NULL;
}

/* Are the streams left all refused ones (to send again elsewhere)? */
static int only_refused(loop_t *L, conn_t *c)
{
    for (uint32_t i = 0; i < c->count; i++)
        if (slot_at(L, c, i)->stream >= 0) return 0;
    return 1;
}

/* Submits the slots not yet streams, then writes the session's frames. */
static void h2_flush(loop_t *L, conn_t *c)
{
    h2conn_t *h = c->h2;
    while (c->written < c->count) {
        slot_t *s = slot_at(L, c, c->written);
        s->stream = h2s_submit(h->s, &reqs[s->req]);
        if (s->stream < 0) {
            conn_fail(L, c, ERR_PARSE);
            return;
        }
        c->written++;
    }
    for (;;) {
        const uint8_t *out;
        size_t n;
        while (h->wlen < H2_WBUF && (n = h2s_pending(h->s, &out)) > 0) {
            size_t take = n < H2_WBUF - h->wlen ? n : H2_WBUF - h->wlen;
            memcpy(h->wbuf + h->wlen, out, take);
            h->wlen += take;
            h2s_sent(h->s, take);
        }
        if (h->woff == h->wlen) break;
        struct iovec iov = {h->wbuf + h->woff, h->wlen - h->woff};
        ssize_t w = L->tp->sock->writev(c, &iov, 1);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                c->want_out = 1;
                return;
            }
            c->want_out = 0;
            if (errno != EPIPE) conn_fail(L, c, ERR_RESET);
            return; /* EPIPE: the read side tells how the server closed */
        }
        h->woff += (size_t)w;
        if (h->woff == h->wlen) h->woff = h->wlen = 0;
    }
    c->want_out = 0;
    /* nghttp2 tells some protocol errors only as the GOAWAY it writes. */
    int kind = h2s_error(h->s);
    if (kind >= 0) conn_fail(L, c, kind);
}

static int h2_on_bytes(loop_t *L, conn_t *c, const char *buf, size_t len)
{
    h2conn_t *h = c->h2;
    h2s_recv(h->s, (const uint8_t *)buf, len);
    /* What the session owes in reply (SETTINGS and PING acks, WINDOW_UPDATE)
     * goes out with the next requests, in one write, when the read side is
     * drained (conn_fill). */
    int kind = h2s_error(h->s);
    if (kind >= 0) {
        conn_fail(L, c, kind);
        return 0;
    }
    if (h2s_goaway(h->s)) c->draining = 1;
    int done = !L->o->keep_alive && c->served > 0 && c->count == 0;
    if (done || (c->draining && (c->count == 0 || only_refused(L, c))) || h2s_finished(h->s)) {
        conn_end(L, c);
        return 0;
    }
    return 1;
}

/* Streams the server never answered before closing (after a GOAWAY, or a
 * keep-alive limit) are sent again, as in HTTP/1.1; a connection closed
 * before any response failed. */
static void h2_on_eof(loop_t *L, conn_t *c)
{
    if (c->served > 0) conn_end(L, c);
    else conn_fail(L, c, ERR_CLOSED_BEFORE_RESPONSE);
}

const conn_proto proto_h2 = {
    .name = "h2",
    .start = h2_start,
    .on_bytes = h2_on_bytes,
    .flush = h2_flush,
    .on_eof = h2_on_eof,
    .close = h2_close,
    .own_output = 1,
    .always_stamped = 1,
};
#endif
