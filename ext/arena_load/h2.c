/* The HTTP/2 session (see h2.h): nghttp2 in client mode, with the memory
 * interface (nghttp2_session_mem_recv / mem_send) so that the bytes travel
 * through the connection's own transport, plain or TLS. */
#ifdef ARENA_H2
#include "h2.h"
#include "stats.h"

#include <ctype.h>
#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct h2_stream {
    struct h2_stream *prev, *next; /* the session's open streams (freed with it) */
    int32_t id;
    int status;
    int matched;
    uint32_t match_pos;
    const body_expect *expect;
    const char *body;     /* request body still to send */
    size_t body_left;
} h2_stream;

struct h2sess {
    nghttp2_session *s;
    const h2_hooks *hooks;
    void *ud;
    const uint8_t *out;
    size_t outlen;
    int goaway;
    int conn_error;  /* a connection error seen in a callback: its kind, or -1 */
    h2_stream *open;
};

static void unlink_stream(h2sess_t *h, h2_stream *st)
{
    if (st->prev) st->prev->next = st->next;
    else h->open = st->next;
    if (st->next) st->next->prev = st->prev;
}

static nghttp2_session_callbacks *callbacks;

static void match(h2_stream *st, const uint8_t *b, size_t n)
{
    const body_expect *e = st->expect;
    if (!e || st->matched) return;
    uint32_t k = st->match_pos;
    for (size_t i = 0; i < n; i++) {
        while (k > 0 && (char)b[i] != e->needle[k]) k = e->fail[k - 1];
        if ((char)b[i] == e->needle[k] && ++k == e->len) {
            st->matched = 1;
            return;
        }
    }
    st->match_pos = k;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *ud)
{
    (void)flags;
    (void)ud;
    if (f->hd.type != NGHTTP2_HEADERS) return 0;
    h2_stream *st = nghttp2_session_get_stream_user_data(s, f->hd.stream_id);
    if (!st || namelen != 7 || memcmp(name, ":status", 7) != 0) return 0;
    int status = 0;
    for (size_t i = 0; i < valuelen && i < 3; i++) status = status * 10 + (value[i] - '0');
    /* An interim response (1xx) is not the answer: the final one follows. */
    if (status >= 200 && status <= 999) st->status = status;
    return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data, size_t len, void *ud)
{
    (void)flags;
    (void)ud;
    h2_stream *st = nghttp2_session_get_stream_user_data(s, id);
    if (st) match(st, data, len);
    return 0;
}

static int on_close(nghttp2_session *s, int32_t id, uint32_t code, void *ud)
{
    h2sess_t *h = ud;
    h2_stream *st = nghttp2_session_get_stream_user_data(s, id);
    if (!st) return 0;
    nghttp2_session_set_stream_user_data(s, id, NULL);
    if (code == NGHTTP2_NO_ERROR && st->status) {
        h->hooks->on_stream(h->ud, id, H2_RESPONSE, st->status, st->matched, 0);
    } else if (code == NGHTTP2_REFUSED_STREAM) {
        h->hooks->on_stream(h->ud, id, H2_RETRY, 0, 0, 0);
    } else {
        int kind = code == NGHTTP2_FLOW_CONTROL_ERROR ? ERR_FLOW_CONTROL
                   : h->goaway == 2                   ? ERR_GOAWAY
                   : code == NGHTTP2_NO_ERROR         ? ERR_CLOSED_BEFORE_RESPONSE
                                                      : ERR_RST_STREAM;
        h->hooks->on_stream(h->ud, id, H2_ERROR, 0, 0, kind);
    }
    unlink_stream(h, st);
    free(st);
    return 0;
}

static int on_frame(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    (void)s;
    h2sess_t *h = ud;
    if (f->hd.type == NGHTTP2_GOAWAY) {
        h->goaway = f->goaway.error_code == NGHTTP2_NO_ERROR ? 1 : 2;
        if (h->goaway == 2 && h->conn_error < 0)
            h->conn_error = f->goaway.error_code == NGHTTP2_FLOW_CONTROL_ERROR ? ERR_FLOW_CONTROL : ERR_GOAWAY;
    }
    return 0;
}

/* nghttp2 ends a session that broke the protocol (a window overrun, a bad
 * first frame) by sending GOAWAY with the reason, not by an error return. */
static int on_sent(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    (void)s;
    h2sess_t *h = ud;
    if (f->hd.type == NGHTTP2_GOAWAY && f->goaway.error_code != NGHTTP2_NO_ERROR && h->conn_error < 0)
        h->conn_error = f->goaway.error_code == NGHTTP2_FLOW_CONTROL_ERROR ? ERR_FLOW_CONTROL : ERR_PARSE;
    return 0;
}

/* A frame nghttp2 refused to accept (its own checks: flow control, framing). */
static int on_invalid(nghttp2_session *s, const nghttp2_frame *f, int err, void *ud)
{
    (void)s;
    (void)f;
    h2sess_t *h = ud;
    if (h->conn_error < 0) h->conn_error = err == NGHTTP2_ERR_FLOW_CONTROL ? ERR_FLOW_CONTROL : ERR_PARSE;
    return 0;
}

static ssize_t read_body(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *ud)
{
    (void)s;
    (void)id;
    (void)ud;
    h2_stream *st = src->ptr;
    size_t n = st->body_left < len ? st->body_left : len;
    memcpy(buf, st->body, n);
    st->body += n;
    st->body_left -= n;
    if (st->body_left == 0) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

int h2s_init(void)
{
    if (callbacks) return 0;
    nghttp2_session_callbacks *cb;
    if (nghttp2_session_callbacks_new(&cb) != 0) return -1;
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(cb, on_invalid);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_sent);
    callbacks = cb;
    return 0;
}

h2sess_t *h2s_new(const h2_hooks *hooks, void *ud, uint32_t window)
{
    if (h2s_init() < 0) return NULL;
    h2sess_t *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->hooks = hooks;
    h->ud = ud;
    h->conn_error = -1;
    if (nghttp2_session_client_new(&h->s, callbacks, h) != 0) {
        free(h);
        return NULL;
    }
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, window},
    };
    nghttp2_submit_settings(h->s, NGHTTP2_FLAG_NONE, iv, 2);
    if (window > NGHTTP2_INITIAL_CONNECTION_WINDOW_SIZE)
        nghttp2_session_set_local_window_size(h->s, NGHTTP2_FLAG_NONE, 0, (int32_t)window);
    return h;
}

void h2s_free(h2sess_t *h)
{
    if (!h) return;
    /* nghttp2 frees its streams without calling back: free their state here. */
    nghttp2_session_del(h->s);
    while (h->open) {
        h2_stream *st = h->open;
        h->open = st->next;
        free(st);
    }
    free(h);
}

int32_t h2s_submit(h2sess_t *h, const h2_req *r)
{
    h2_stream *st = calloc(1, sizeof *st);
    if (!st) return -1;
    st->expect = r->expect && r->expect->len ? r->expect : NULL;
    st->matched = st->expect ? 0 : 1;
    st->body = r->body;
    st->body_left = r->body_len;
    nghttp2_data_provider dp = {.source.ptr = st, .read_callback = read_body};
    int32_t id = nghttp2_submit_request(h->s, NULL, r->nv, r->nvlen, r->body_len ? &dp : NULL, st);
    if (id < 0) {
        free(st);
        return -1;
    }
    st->id = id;
    st->next = h->open;
    if (h->open) h->open->prev = st;
    h->open = st;
    return id;
}

int h2s_recv(h2sess_t *h, const uint8_t *buf, size_t len)
{
    ssize_t n = nghttp2_session_mem_recv(h->s, buf, len);
    if (n < 0) {
        if (h->conn_error < 0) h->conn_error = n == NGHTTP2_ERR_FLOW_CONTROL ? ERR_FLOW_CONTROL : ERR_PARSE;
    }
    return h->conn_error;
}

size_t h2s_pending(h2sess_t *h, const uint8_t **out)
{
    if (h->outlen == 0) {
        ssize_t n = nghttp2_session_mem_send(h->s, &h->out);
        h->outlen = n > 0 ? (size_t)n : 0;
    }
    *out = h->out;
    return h->outlen;
}

void h2s_sent(h2sess_t *h, size_t n)
{
    h->out += n;
    h->outlen -= n;
}

int h2s_error(const h2sess_t *h)
{
    return h->conn_error;
}

int h2s_goaway(const h2sess_t *h)
{
    return h->goaway;
}

int h2s_finished(const h2sess_t *h)
{
    return !nghttp2_session_want_read(h->s) && !nghttp2_session_want_write(h->s) && h->outlen == 0;
}

/* ---- requests ---- */

static int skipped_header(const char *name, size_t len)
{
    static const char *const hop[] = {"host", "connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                      "upgrade", "te"};
    for (size_t i = 0; i < sizeof hop / sizeof *hop; i++)
        if (strlen(hop[i]) == len && strncasecmp(hop[i], name, len) == 0) return 1;
    return 0;
}

int h2_req_from_http1(h2_req *out, const char *bytes, size_t len, const char *scheme, const body_expect *expect)
{
    memset(out, 0, sizeof *out);
    const char *end = memmem(bytes, len, "\r\n\r\n", 4);
    if (!end) return -1;
    size_t head = (size_t)(end - bytes) + 4;
    size_t nlines = 0;
    for (const char *p = bytes; p < end; p++) nlines += *p == '\n';
    nghttp2_nv *nv = calloc(nlines + 5, sizeof *nv);
    char *own = malloc(head + 1);
    if (!nv || !own) {
        free(nv);
        free(own);
        return -1;
    }
    memcpy(own, bytes, head);
    own[head] = 0;
    /* request line: METHOD SP TARGET SP HTTP/1.1 */
    char *line_end = strstr(own, "\r\n");
    char *sp1 = memchr(own, ' ', (size_t)(line_end - own));
    char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1)) : NULL;
    if (!sp1 || !sp2) {
        free(nv);
        free(own);
        return -1;
    }
    size_t n = 0;
#define NV(nm, nl, vl, vlen) \
    nv[n++] = (nghttp2_nv){(uint8_t *)(nm), (uint8_t *)(vl), (nl), (vlen), NGHTTP2_NV_FLAG_NONE}
    NV(":method", 7, own, (size_t)(sp1 - own));
    NV(":scheme", 7, scheme, strlen(scheme));
    NV(":path", 5, sp1 + 1, (size_t)(sp2 - sp1 - 1));
    size_t authority = n++;
    nv[authority] = (nghttp2_nv){(uint8_t *)":authority", (uint8_t *)"", 10, 0, NGHTTP2_NV_FLAG_NONE};
    for (char *p = line_end + 2; p < own + head - 2;) {
        char *e = strstr(p, "\r\n");
        char *colon = memchr(p, ':', (size_t)(e - p));
        if (!colon) break;
        size_t nl = (size_t)(colon - p);
        char *v = colon + 1;
        while (v < e && (*v == ' ' || *v == '\t')) v++;
        for (char *q = p; q < colon; q++) *q = (char)tolower((unsigned char)*q);
        if (nl == 4 && memcmp(p, "host", 4) == 0) {
            nv[authority].value = (uint8_t *)v;
            nv[authority].valuelen = (size_t)(e - v);
        } else if (!skipped_header(p, nl)) {
            NV(p, nl, v, (size_t)(e - v));
        }
        p = e + 2;
    }
#undef NV
    out->nv = nv;
    out->nvlen = n;
    out->body = bytes + head;
    out->body_len = len - head;
    out->expect = expect;
    out->owned = own;
    return 0;
}

void h2_req_free(h2_req *r)
{
    free(r->nv);
    free(r->owned);
    memset(r, 0, sizeof *r);
}
#endif
