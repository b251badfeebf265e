/* TLS through OpenSSL: the handshake on a non-blocking descriptor, reads and
 * writes as the kernel's, session resumption, and ALPN for HTTP/2.
 *
 * One SSL_CTX for the run (OpenSSL's contexts are safe to share between
 * threads once set up); one SSL per connection. A failed handshake is told
 * apart: the certificate (verification asked with --cacert), the protocol the
 * server chose (ALPN), or the handshake itself. */
#ifdef ARENA_TLS
#include "loop.h"

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>

static int conn_index = -1; /* ex_data slot: the conn_t of an SSL (for the session callback) */

/* A server's new session (TLS 1.3 sends them after the handshake): keep the
 * latest on the connection, to offer on its next connect. */
static int on_new_session(SSL *ssl, SSL_SESSION *sess)
{
    conn_t *c = SSL_get_ex_data(ssl, conn_index);
    if (!c) return 0;
    if (c->tls_session) SSL_SESSION_free(c->tls_session);
    c->tls_session = sess;
    return 1; /* we keep the reference */
}

/* "h2,http/1.1" -> ALPN wire format (length-prefixed names). */
static int alpn_wire(const char *list, unsigned char *out, size_t cap)
{
    size_t n = 0;
    while (*list) {
        const char *end = strchr(list, ',');
        size_t len = end ? (size_t)(end - list) : strlen(list);
        if (len == 0 || len > 255 || n + 1 + len > cap) return -1;
        out[n++] = (unsigned char)len;
        memcpy(out + n, list, len);
        n += len;
        list += len + (end ? 1 : 0);
    }
    return (int)n;
}

int tls_ctx_new(transport_t *t, char *err, size_t errlen)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        snprintf(err, errlen, "cannot set up TLS: %s", ERR_reason_error_string(ERR_get_error()));
        return -1;
    }
    if (conn_index < 0) conn_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    /* A server that closes without close_notify ends the stream, as over TCP. */
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* No SSL_MODE_RELEASE_BUFFERS: freeing and reallocating the record buffers
     * between reads costs CPU on every request of a busy connection. */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (t->resume) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(ctx, on_new_session);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    }
    if (t->cacert) {
        if (SSL_CTX_load_verify_locations(ctx, t->cacert, NULL) != 1) {
            snprintf(err, errlen, "cannot read CA certificate '%s'", t->cacert);
            SSL_CTX_free(ctx);
            return -1;
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    }
    /* As browsers do: h2 offered with http/1.1 beside it, so that a server
     * without h2 answers with its choice and the mismatch is told apart. */
    const char *alpn = t->alpn ? t->alpn : (t->h2 ? "h2,http/1.1" : "http/1.1");
    unsigned char wire[256];
    int n = alpn_wire(alpn, wire, sizeof wire);
    if (n <= 0) {
        snprintf(err, errlen, "malformed --alpn '%s': expected names separated by commas", alpn);
        SSL_CTX_free(ctx);
        return -1;
    }
    SSL_CTX_set_alpn_protos(ctx, wire, (unsigned)n);
    t->ssl_ctx = ctx;
    return 0;
}

void tls_ctx_free(transport_t *t)
{
    if (t->ssl_ctx) SSL_CTX_free(t->ssl_ctx);
    t->ssl_ctx = NULL;
}

static int tls_begin(loop_t *L, conn_t *c)
{
    const transport_t *t = L->tp;
    SSL *ssl = SSL_new(t->ssl_ctx);
    if (!ssl) return -1;
    c->tls = ssl;
    SSL_set_fd(ssl, c->fd);
    SSL_set_connect_state(ssl);
    SSL_set_ex_data(ssl, conn_index, c);
    if (t->sni && *t->sni) {
        /* SNI only for names (an IP address is not sent); verification
         * checks the name or the address the certificate was made for. */
        unsigned char buf[16];
        int is_ip = inet_pton(AF_INET, t->sni, buf) == 1 || inet_pton(AF_INET6, t->sni, buf) == 1;
        if (!is_ip) SSL_set_tlsext_host_name(ssl, t->sni);
        if (t->cacert) {
            X509_VERIFY_PARAM *vp = SSL_get0_param(ssl);
            if (is_ip) X509_VERIFY_PARAM_set1_ip_asc(vp, t->sni);
            else X509_VERIFY_PARAM_set1_host(vp, t->sni, 0);
        }
    }
    if (t->resume && c->tls_session) SSL_set_session(ssl, c->tls_session);
    return 0;
}

static int tls_handshake(loop_t *L, conn_t *c, int *kind)
{
    *kind = ERR_HANDSHAKE;
    if (!c->tls && tls_begin(L, c) < 0) return T_FAIL;
    SSL *ssl = c->tls;
    ERR_clear_error();
    int r = SSL_do_handshake(ssl);
    if (r != 1) {
        int e = SSL_get_error(ssl, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return T_AGAIN;
        unsigned long reason = ERR_GET_REASON(ERR_peek_last_error());
        if (SSL_get_verify_result(ssl) != X509_V_OK) *kind = ERR_CERTIFICATE;
        else if (reason == SSL_R_TLSV1_ALERT_NO_APPLICATION_PROTOCOL) *kind = ERR_ALPN;
        else if (e == SSL_ERROR_SYSCALL && (errno == ECONNREFUSED || errno == ECONNRESET)) *kind = ERR_RESET;
        ERR_clear_error();
        return T_FAIL;
    }
    if (L->tp->h2) {
        const unsigned char *p = NULL;
        unsigned len = 0;
        SSL_get0_alpn_selected(ssl, &p, &len);
        if (len != 2 || memcmp(p, "h2", 2) != 0) {
            *kind = ERR_ALPN;
            return T_FAIL;
        }
    }
    if (counted(L, L->now)) {
        if (SSL_session_reused(ssl)) L->st->tls_resumed++;
        else L->st->tls_full++;
    }
    return T_OK;
}

static ssize_t tls_read(conn_t *c, char *buf, size_t len)
{
    SSL *ssl = c->tls;
    ERR_clear_error();
    int n = SSL_read(ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);
    if (n > 0) return n;
    switch (SSL_get_error(ssl, n)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_SYSCALL:
        if (errno == 0) return 0;
        return -1;
    default:
        ERR_clear_error();
        errno = ECONNRESET;
        return -1;
    }
}

/* SSL_write takes one buffer: small iovecs are gathered into one record's
 * worth (a pipelined burst is one record, as the kernel would make it one
 * segment). A retry after EAGAIN presents the same bytes again, as OpenSSL asks. */
static ssize_t tls_writev(conn_t *c, const struct iovec *iov, int n)
{
    char buf[16384];
    const void *p = iov[0].iov_base;
    size_t len = iov[0].iov_len;
    if (n > 1 && len < sizeof buf) {
        len = 0;
        for (int i = 0; i < n && len < sizeof buf; i++) {
            size_t take = iov[i].iov_len;
            if (take > sizeof buf - len) take = sizeof buf - len;
            memcpy(buf + len, iov[i].iov_base, take);
            len += take;
        }
        p = buf;
    }
    if (len == 0) return 0;
    ERR_clear_error();
    int w = SSL_write(c->tls, p, len > INT32_MAX ? INT32_MAX : (int)len);
    if (w > 0) return w;
    switch (SSL_get_error(c->tls, w)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_SYSCALL:
        if (errno == 0) errno = EPIPE;
        return -1;
    default:
        ERR_clear_error();
        errno = ECONNRESET;
        return -1;
    }
}

static void tls_close(conn_t *c)
{
    if (!c->tls) return;
    SSL_set_ex_data(c->tls, conn_index, NULL);
    /* No close_notify is sent (a client that goes away), but the session
     * must stay resumable: OpenSSL marks it spent when freed unshut. */
    SSL_set_shutdown(c->tls, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_free(c->tls);
    c->tls = NULL;
}

void tls_session_free(conn_t *c)
{
    if (c->tls_session) SSL_SESSION_free(c->tls_session);
    c->tls_session = NULL;
}

const char *tls_alpn(conn_t *c)
{
    static _Thread_local char name[32];
    const unsigned char *p = NULL;
    unsigned len = 0;
    if (c->tls) SSL_get0_alpn_selected(c->tls, &p, &len);
    if (len >= sizeof name) len = sizeof name - 1;
    memcpy(name, p ? (const char *)p : "", len);
    name[len] = 0;
    return name;
}

const char *tls_version(conn_t *c)
{
    return c->tls ? SSL_get_version(c->tls) : "";
}

const sock_ops sock_tls = {"tls", tls_handshake, tls_read, tls_writev, tls_close};
#endif
