/* The plain transport (the kernel's own read and sendmsg), the run's choice
 * of transport, and what a connection tells about it. */
#include "loop.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static ssize_t plain_read(conn_t *c, char *buf, size_t len)
{
    return read(c->fd, buf, len);
}

static ssize_t plain_writev(conn_t *c, const struct iovec *iov, int n)
{
    struct msghdr msg = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n};
    return sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
}

const sock_ops sock_plain = {"plain", NULL, plain_read, plain_writev, NULL};
const transport_t transport_default = {.sock = &sock_plain};

int transport_has_tls(void)
{
#ifdef ARENA_TLS
    return 1;
#else
    return 0;
#endif
}

int transport_has_h2(void)
{
#ifdef ARENA_H2
    return 1;
#else
    return 0;
#endif
}

int transport_setup(transport_t *t, const transport_opts *opts, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->tls = opts->tls;
    t->h2 = opts->h2;
    t->resume = opts->resume;
    t->cacert = opts->cacert;
    t->alpn = opts->alpn;
    t->sni = opts->sni;
    t->sock = &sock_plain;
    if (t->h2 && !transport_has_h2()) {
        snprintf(err, errlen, "this arena-load was built without HTTP/2: install libnghttp2-dev and rebuild (make -C ext/arena_load)");
        return -1;
    }
    if (!t->tls) return 0;
    if (!transport_has_tls()) {
        snprintf(err, errlen, "this arena-load was built without TLS: install libssl-dev and rebuild (make -C ext/arena_load)");
        return -1;
    }
    if (tls_ctx_new(t, err, errlen) < 0) return -1;
    t->sock = &sock_tls;
    return 0;
}

void transport_free(transport_t *t)
{
    if (t->tls) tls_ctx_free(t);
}

/* The first connection of a thread that gets through records what was
 * negotiated: the figures carry the protocol they were measured on. */
void transport_note_protocol(loop_t *L, conn_t *c)
{
    stats_t *st = L->st;
    const char *p = L->tp->h2 ? (L->tp->tls ? "h2" : "h2c") : "http/1.1";
    snprintf(st->protocol, sizeof st->protocol, "%s", p);
    if (c->tls) snprintf(st->tls_version, sizeof st->tls_version, "%s", tls_version(c));
}

/* At the end of the run: what a closed connection still holds (its TLS session). */
void transport_conn_free(loop_t *L, conn_t *c)
{
    if (c->proto->close) c->proto->close(c);
    if (c->tls) L->tp->sock->close(c);
    if (c->tls_session) tls_session_free(c);
}

#ifndef ARENA_TLS
/* Built without OpenSSL: transport_setup refuses https before any of these can run. */
const sock_ops sock_tls = {"tls", NULL, plain_read, plain_writev, NULL};
int tls_ctx_new(transport_t *t, char *err, size_t errlen) { (void)t; snprintf(err, errlen, "no TLS"); return -1; }
void tls_ctx_free(transport_t *t) { (void)t; }
const char *tls_alpn(conn_t *c) { (void)c; return ""; }
const char *tls_version(conn_t *c) { (void)c; return ""; }
void tls_session_free(conn_t *c) { (void)c; }
#endif

#ifndef ARENA_H2
/* Built without nghttp2: transport_setup refuses --http2, so no connection
 * is given this table; the loop links against it all the same. */
static int h2_none_start(loop_t *L, conn_t *c) { (void)L; (void)c; return -1; }
static int h2_none_bytes(loop_t *L, conn_t *c, const char *buf, size_t len) { (void)L; (void)c; (void)buf; (void)len; return 0; }
static void h2_none_event(loop_t *L, conn_t *c) { (void)L; (void)c; }
const conn_proto proto_h2 = {
    .name = "h2",
    .start = h2_none_start,
    .on_bytes = h2_none_bytes,
    .flush = h2_none_event,
    .on_eof = h2_none_event,
};
int h2_requests_build(const void *rs, const char *scheme) { (void)rs; (void)scheme; return 0; }
void h2_requests_free(void) { }
#endif
