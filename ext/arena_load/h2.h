/* HTTP/2 on nghttp2, in two parts:
 *
 *   h2.c      the session: requests in, frames out, frames in, one result per
 *             stream out (a response with its status and body check, or the
 *             error kind that ended it). It knows no socket and no clock, so
 *             the C tests drive it with recorded frame sequences.
 *   h2conn.c  the glue to a connection: slots become streams, results become
 *             the loop's figures, bytes go through the connection's transport.
 *
 * Results are only recorded inside nghttp2's callbacks; anything that would
 * free the session (closing the connection) waits until h2s_recv returns. */
#ifndef ARENA_H2_H
#define ARENA_H2_H

#include "parser.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A request as HTTP/2 sends it: built once from the HTTP/1.1 bytes. */
typedef struct {
    void *nv;            /* nghttp2_nv[] */
    size_t nvlen;
    const char *body;
    size_t body_len;
    const body_expect *expect;
    char *owned;         /* lower-cased names and values */
} h2_req;

enum { H2_RESPONSE, H2_RETRY, H2_ERROR };

typedef struct {
    /* A stream ended: H2_RESPONSE (status, matched), H2_RETRY (refused, never
     * processed: send again), or H2_ERROR (kind). */
    void (*on_stream)(void *ud, int32_t stream, int what, int status, int matched, int kind);
} h2_hooks;

typedef struct h2sess h2sess_t;

/* Sets up nghttp2's callbacks: once, before the threads start (no race). */
int h2s_init(void);
/* window: the initial stream and connection receive window we announce. */
h2sess_t *h2s_new(const h2_hooks *hooks, void *ud, uint32_t window);
void h2s_free(h2sess_t *h);
/* Queues a request; returns its stream id, or -1. */
int32_t h2s_submit(h2sess_t *h, const h2_req *r);
/* Feeds received bytes. Returns -1 (ok) or the error kind of a connection error. */
int h2s_recv(h2sess_t *h, const uint8_t *buf, size_t len);
/* A connection error seen so far (-1: none). nghttp2 tells some only when it
 * writes its GOAWAY: ask again after h2s_pending. */
int h2s_error(const h2sess_t *h);
/* Bytes to send next (0: none); stay valid until h2s_sent. */
size_t h2s_pending(h2sess_t *h, const uint8_t **out);
void h2s_sent(h2sess_t *h, size_t n);
/* GOAWAY received: 0 none, 1 graceful (NO_ERROR), 2 with an error code. */
int h2s_goaway(const h2sess_t *h);
/* The session has nothing more to do (after GOAWAY, every stream ended). */
int h2s_finished(const h2sess_t *h);

/* Builds the HTTP/2 form of an HTTP/1.1 request (as request.c wrote it). */
int h2_req_from_http1(h2_req *out, const char *bytes, size_t len, const char *scheme, const body_expect *expect);
void h2_req_free(h2_req *r);

#endif
