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
 *   conn_proto the protocol: HTTP/1.1 (conn.c's own parser, on the slot
 *              ring) or HTTP/2 (h2conn.c, on nghttp2), which maps a slot to a
 *              stream. conn.c calls it where the two differ (bytes in, bytes
 *              out, the peer's close, the connection's end) and never asks
 *              which one it has.
 *
 * The byte stream is chosen in transport_setup from the target's scheme and
 * the flags, the protocol once per connection when the loop sets it up (from
 * the same flags: every connection of a run speaks the same one). The plain
 * HTTP/1.1 path reads and writes through one indirect call each way, so it
 * keeps its speed. */
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

/* The protocol on a connection whose handshake is done. Each function may
 * close the connection (conn_fail, conn_end); those that return an int say so
 * by returning 0 (on_bytes) or -1 (start). NULL: nothing to do. */
typedef struct conn_proto {
    const char *name;
    /* Its first bytes and state (HTTP/2: the session); 0, or -1 with the
     * connection failed and its error counted. */
    int (*start)(struct loop_s *L, struct conn_s *c);
    /* Bytes read: responses completed and accounted. 0 when the connection was closed. */
    int (*on_bytes)(struct loop_s *L, struct conn_s *c, const char *buf, size_t len);
    /* Sends the requests pushed since the last flush, and whatever the
     * protocol owes the server; sets want_out when the socket is full. */
    void (*flush)(struct loop_s *L, struct conn_s *c);
    /* The server closed with requests in flight: end (send them again) or fail. */
    void (*on_eof)(struct loop_s *L, struct conn_s *c);
    /* Frees what start made (the descriptor and the TLS layer are conn.c's). */
    void (*close)(struct conn_s *c);
    /* It writes on its own, with no request waiting (HTTP/2: SETTINGS and
     * PING acks, WINDOW_UPDATE): flushed after every read. */
    uint8_t own_output;
    /* Every request carries its X-Request-Start: HTTP/2 requests are framed
     * once (h2.c), header included, so none can be sent without it and
     * --request-start-every / -warmup do not thin them. */
    uint8_t always_stamped;
} conn_proto;

extern const conn_proto proto_http1; /* conn.c */
extern const conn_proto proto_h2;    /* h2conn.c (a stub that is never chosen when built without nghttp2) */

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

/* h2conn.c: the HTTP/2 form of the run's requests, built once before the threads start. */
int h2_requests_build(const void *request_set, const char *scheme); /* 0, or -1 when a request cannot be read back */
void h2_requests_free(void);

#endif
