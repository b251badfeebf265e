/* The transport seam: how a connection's bytes travel, chosen once per run
 * and fixed for every connection (the idea of wrk's `struct sock`, written
 * here anew).
 *
 * Two layers, each a small table of functions:
 *
 *   sock_ops   the byte stream: plain TCP or unix (the kernel), or TLS
 *              (OpenSSL over the same descriptor). After the kernel reports
 *              the connect, `handshake` runs until it returns T_OK; then
 *              `read` and `writev` move bytes, with the kernel's EAGAIN
 *              meaning "wait for the next edge"; `close` frees what the
 *              connection holds (the descriptor is closed by conn.c).
 *
 *   protocol   HTTP/1.1 (conn.c's own parser, on the slot ring as before) or
 *              HTTP/2 (h2.c, on nghttp2), which maps a slot to a stream.
 *
 * Both are chosen in transport_setup from the target's scheme and the flags;
 * the plain HTTP/1.1 path calls read/sendmsg through one indirect call and
 * nothing else, so it keeps its speed. */
#ifndef ARENA_TRANSPORT_H
#define ARENA_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct loop_s;
struct conn_s;

/* handshake results */
enum { T_OK = 0, T_AGAIN = 1, T_FAIL = -1 };

typedef struct {
    const char *name;
    /* Drives the handshake on a connected descriptor: T_OK, T_AGAIN (wait for
     * the next event), or T_FAIL with the error kind in *kind. */
    int (*handshake)(struct loop_s *L, struct conn_s *c, int *kind);
    /* As read(2): n > 0, 0 at the peer's end, -1 with errno (EAGAIN: drained). */
    ssize_t (*read)(struct conn_s *c, char *buf, size_t len);
    /* As sendmsg(2) on an iovec: bytes taken, or -1 with errno. */
    ssize_t (*writev)(struct conn_s *c, const struct iovec *iov, int n);
    void (*close)(struct conn_s *c);
} sock_ops;

extern const sock_ops sock_plain;

/* What a run's transport is, from the target and the flags. */
typedef struct {
    int tls;              /* https:// */
    int h2;               /* --http2: over TLS with ALPN h2, or h2c with prior knowledge */
    int resume;           /* --tls-resume: offer the last session again on reconnect */
    const char *cacert;   /* --cacert: verify the server's chain against it (else not verified) */
    const char *alpn;     /* --alpn: protocols offered, comma separated (default from h2) */
    const char *sni;      /* host name for SNI and verification */
    void *ssl_ctx;        /* SSL_CTX, shared by the threads (OpenSSL makes it safe) */
    const sock_ops *sock;
} transport_t;

extern const transport_t transport_default; /* plain HTTP/1.1 */

/* What the run asks of its transport (from the target and the flags): named
 * fields, so that a call site says which flag goes where and the four ints
 * and strings cannot be passed in the wrong order. */
typedef struct {
    int tls;              /* https:// */
    int h2;               /* --http2 */
    int resume;           /* --tls-resume */
    const char *cacert;   /* --cacert, or NULL */
    const char *alpn;     /* --alpn, or NULL */
    const char *sni;      /* the target's host */
} transport_opts;

/* Builds the run's transport. Returns 0, or -1 with a one-line reason. */
int transport_setup(transport_t *t, const transport_opts *opts, char *err, size_t errlen);
void transport_free(transport_t *t);

/* Which features this binary was built with (for --version and messages). */
int transport_has_tls(void);
int transport_has_h2(void);

/* tls.c */
extern const sock_ops sock_tls;
int tls_ctx_new(transport_t *t, char *err, size_t errlen);
void tls_ctx_free(transport_t *t);
/* The protocol the server chose by ALPN ("" when none), and the TLS version. */
const char *tls_alpn(struct conn_s *c);
const char *tls_version(struct conn_s *c);
void tls_session_free(struct conn_s *c);
void transport_note_protocol(struct loop_s *L, struct conn_s *c);

/* h2.c: HTTP/2 on a connection whose handshake is done. */
int h2_start(struct loop_s *L, struct conn_s *c);               /* preface and SETTINGS; 0 or -1 (error counted) */
void h2_flush(struct loop_s *L, struct conn_s *c);              /* submit new requests, write frames */
int h2_on_bytes(struct loop_s *L, struct conn_s *c, const char *buf, size_t len); /* 0 when closed */
void h2_close(struct conn_s *c);
int h2_requests_build(const void *request_set, const char *scheme); /* 0, or -1 when a request cannot be read back */
void h2_requests_free(void);

#endif
