/* The HTTP/2 session (h2.c) on recorded frame sequences: bytes written out
 * by hand (HPACK's static table makes ":status 200" the one byte 0x88), fed
 * as a server would send them; and flow control with a body larger than the
 * window against a real nghttp2 server session. */
#include "check.h"
#include "h2.h"
#include "stats.h"

#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n, what[8], status[8], matched[8], kind[8];
    int32_t stream[8];
} results;

static void on_stream(void *ud, int32_t stream, int what, int status, int matched, int kind)
{
    results *r = ud;
    if (r->n >= 8) return;
    r->stream[r->n] = stream;
    r->what[r->n] = what;
    r->status[r->n] = status;
    r->matched[r->n] = matched;
    r->kind[r->n] = kind;
    r->n++;
}

static const h2_hooks hooks = {on_stream};

/* frame header: length (24), type, flags, stream id (31) */
static size_t frame(uint8_t *out, uint32_t len, uint8_t type, uint8_t flags, uint32_t stream)
{
    out[0] = (uint8_t)(len >> 16), out[1] = (uint8_t)(len >> 8), out[2] = (uint8_t)len;
    out[3] = type, out[4] = flags;
    out[5] = (uint8_t)(stream >> 24), out[6] = (uint8_t)(stream >> 16), out[7] = (uint8_t)(stream >> 8),
    out[8] = (uint8_t)stream;
    return 9;
}

static size_t u32(uint8_t *out, uint32_t v)
{
    out[0] = (uint8_t)(v >> 24), out[1] = (uint8_t)(v >> 16), out[2] = (uint8_t)(v >> 8), out[3] = (uint8_t)v;
    return 4;
}

static size_t settings(uint8_t *b) { return frame(b, 0, 4, 0, 0); }
static size_t headers_200(uint8_t *b, uint32_t id, int end)
{
    size_t n = frame(b, 1, 1, 0x4 | (end ? 0x1 : 0), id);
    b[n++] = 0x88;
    return n;
}
static size_t data(uint8_t *b, uint32_t id, const char *s, size_t len, int end)
{
    size_t n = frame(b, (uint32_t)len, 0, end ? 1 : 0, id);
    memcpy(b + n, s, len);
    return n + len;
}
static size_t rst(uint8_t *b, uint32_t id, uint32_t code) { return frame(b, 4, 3, 0, id) + u32(b + 9, code); }
static size_t goaway(uint8_t *b, uint32_t last, uint32_t code)
{
    size_t n = frame(b, 8, 7, 0, 0);
    n += u32(b + n, last);
    return n + u32(b + n, code);
}

static body_expect expect_of(const char *needle, uint32_t *fail)
{
    body_expect e;
    body_expect_init(&e, needle, strlen(needle), fail);
    return e;
}

static h2_req request(const body_expect *e)
{
    static const char http1[] = "GET /x HTTP/1.1\r\nHost: 127.0.0.1:8443\r\nConnection: close\r\nX-A: 1\r\n\r\n";
    h2_req r;
    h2_req_from_http1(&r, http1, sizeof http1 - 1, "https", e);
    return r;
}

static void drain(h2sess_t *h)
{
    const uint8_t *out;
    size_t n;
    while ((n = h2s_pending(h, &out)) > 0) h2s_sent(h, n);
}

/* A session with one request sent and its output drained. */
static h2sess_t *started(results *res, const h2_req *r, uint32_t window)
{
    h2sess_t *h = h2s_new(&hooks, res, window);
    CHECK(h2s_submit(h, r) == 1, "first stream is 1");
    const uint8_t *out;
    size_t n;
    while ((n = h2s_pending(h, &out)) > 0) h2s_sent(h, n);
    return h;
}

static void check_request_headers(void)
{
    static const char http1[] =
        "POST /up?a=1 HTTP/1.1\r\nHost: 127.0.0.1:9\r\nContent-Length: 3\r\nX-Mixed-Case: V\r\nKeep-Alive: 5\r\n\r\nabc";
    h2_req r;
    CHECK(h2_req_from_http1(&r, http1, sizeof http1 - 1, "http", NULL) == 0, "parsed");
    nghttp2_nv *nv = r.nv;
    CHECK(r.nvlen == 6, "method scheme path authority content-length x-mixed-case: %zu", r.nvlen);
    CHECK(nv[0].valuelen == 4 && !memcmp(nv[0].value, "POST", 4), ":method");
    CHECK(nv[2].valuelen == 7 && !memcmp(nv[2].value, "/up?a=1", 7), ":path");
    CHECK(nv[3].valuelen == 11 && !memcmp(nv[3].value, "127.0.0.1:9", 11), ":authority from Host");
    CHECK(!memcmp(nv[5].name, "x-mixed-case", 12), "names lower-cased");
    CHECK(r.body_len == 3 && !memcmp(r.body, "abc", 3), "body");
    h2_req_free(&r);
    CHECK(h2_req_from_http1(&r, "GET / HTTP/1.1\r\n", 16, "http", NULL) < 0, "no end of head: refused");
}

static void check_response(void)
{
    uint32_t fail[8];
    body_expect e = expect_of("ell", fail);
    h2_req r = request(&e);
    results res = {0};
    h2sess_t *h = started(&res, &r, 65535);
    uint8_t b[256];
    size_t n = settings(b);
    n += headers_200(b + n, 1, 0);
    n += data(b + n, 1, "he", 2, 0);
    n += data(b + n, 1, "llo", 3, 1); /* the needle split across frames */
    CHECK(h2s_recv(h, b, n) < 0, "no connection error");
    CHECK(res.n == 1 && res.what[0] == H2_RESPONSE && res.status[0] == 200 && res.matched[0] == 1,
          "one response, 200, matched: n=%d", res.n);
    h2s_free(h);

    body_expect miss = expect_of("xyz", fail);
    h2_req r2 = request(&miss);
    results res2 = {0};
    h = started(&res2, &r2, 65535);
    n = settings(b);
    n += headers_200(b + n, 1, 0);
    n += data(b + n, 1, "hello", 5, 1);
    h2s_recv(h, b, n);
    CHECK(res2.n == 1 && res2.matched[0] == 0, "body mismatch seen");
    h2s_free(h);

    /* An interim 100 before the final answer. */
    results res3 = {0};
    h = started(&res3, &r, 65535);
    n = settings(b);
    /* ":status: 100" as a literal without indexing (name: static index 8). */
    n += frame(b + n, 5, 1, 0x4, 1);
    memcpy(b + n, "\x08\x03" "100", 5);
    n += 5;
    n += headers_200(b + n, 1, 1);
    h2s_recv(h, b, n);
    CHECK(res3.n == 1 && res3.status[0] == 200, "100 Continue then 200: status %d", res3.status[0]);
    h2s_free(h);
    h2_req_free(&r);
    h2_req_free(&r2);
}

static void check_errors(void)
{
    h2_req r = request(NULL);
    uint8_t b[256];
    size_t n;

    results a = {0};
    h2sess_t *h = started(&a, &r, 65535);
    n = settings(b);
    n += rst(b + n, 1, 2 /* INTERNAL_ERROR */);
    CHECK(h2s_recv(h, b, n) < 0, "RST_STREAM is not a connection error");
    CHECK(a.n == 1 && a.what[0] == H2_ERROR && a.kind[0] == ERR_RST_STREAM, "rst_stream: kind %d", a.kind[0]);
    h2s_free(h);

    results b2 = {0};
    h = started(&b2, &r, 65535);
    n = settings(b);
    n += rst(b + n, 1, 7 /* REFUSED_STREAM */);
    h2s_recv(h, b, n);
    CHECK(b2.n == 1 && b2.what[0] == H2_RETRY, "refused stream: sent again, not an error");
    h2s_free(h);

    results c = {0};
    h = started(&c, &r, 65535);
    n = settings(b);
    n += goaway(b + n, 0, 2 /* INTERNAL_ERROR */);
    h2s_recv(h, b, n);
    CHECK(h2s_error(h) == ERR_GOAWAY, "GOAWAY with an error code is a connection error");
    CHECK(h2s_goaway(h) == 2, "goaway state 2");
    h2s_free(h);

    /* A graceful GOAWAY that covers stream 1: it still completes. */
    results d = {0};
    h = started(&d, &r, 65535);
    n = settings(b);
    n += goaway(b + n, 1, 0);
    n += headers_200(b + n, 1, 1);
    CHECK(h2s_recv(h, b, n) < 0, "graceful GOAWAY: no error");
    CHECK(h2s_goaway(h) == 1 && d.n == 1 && d.what[0] == H2_RESPONSE, "stream 1 answered after GOAWAY");
    drain(h);
    CHECK(h2s_finished(h), "nothing more to do");
    h2s_free(h);

    /* DATA beyond the window we announced (1000 bytes, acknowledged by the
     * server): it broke flow control on that stream. */
    results e = {0};
    h = started(&e, &r, 1000);
    static char big[2000];
    memset(big, 'x', sizeof big);
    uint8_t *fb = malloc(sizeof big + 64);
    n = settings(fb);
    n += frame(fb + n, 0, 4, 1, 0); /* SETTINGS ACK: our window now holds */
    n += headers_200(fb + n, 1, 0);
    n += data(fb + n, 1, big, sizeof big, 1);
    h2s_recv(h, fb, n);
    drain(h);
    int k = h2s_error(h);
    CHECK(k == ERR_FLOW_CONTROL || (e.n == 1 && e.kind[0] == ERR_FLOW_CONTROL),
          "flow control violation: conn %d, stream kind %d", k, e.n ? e.kind[0] : -1);
    free(fb);
    h2s_free(h);

    /* Garbage instead of frames. */
    results f = {0};
    h = started(&f, &r, 65535);
    h2s_recv(h, (const uint8_t *)"HTTP/1.1 200 OK\r\n\r\n", 19);
    drain(h);
    CHECK(h2s_error(h) == ERR_PARSE, "HTTP/1.1 answer: parse error (%d)", h2s_error(h));
    h2s_free(h);
    h2_req_free(&r);
}

/* ---- flow control against a real server session ---- */

#define BIG (300 * 1024)
static char big_body[BIG];

static ssize_t srv_read(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                        nghttp2_data_source *src, void *ud)
{
    (void)s, (void)id, (void)ud;
    size_t *off = src->ptr;
    size_t n = BIG - *off < len ? BIG - *off : len;
    memcpy(buf, big_body + *off, n);
    *off += n;
    if (*off == BIG) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static size_t srv_off;

static int srv_on_request(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    (void)ud;
    if (f->hd.type != NGHTTP2_HEADERS || !(f->hd.flags & NGHTTP2_FLAG_END_STREAM)) return 0;
    nghttp2_nv nv[] = {{(uint8_t *)":status", (uint8_t *)"200", 7, 3, NGHTTP2_NV_FLAG_NONE}};
    nghttp2_data_provider dp = {.source.ptr = &srv_off, .read_callback = srv_read};
    nghttp2_submit_response(s, f->hd.stream_id, nv, 1, &dp);
    return 0;
}

static void check_flow_control(void)
{
    memset(big_body, 'a', BIG);
    memcpy(big_body + BIG - 6, "THEEND", 6); /* found only if every byte arrived */
    uint32_t fail[8];
    body_expect e = expect_of("THEEND", fail);
    h2_req r = request(&e);
    results res = {0};
    h2sess_t *h = h2s_new(&hooks, &res, 65535); /* the default window: the body is 4.7 times larger */
    h2s_submit(h, &r);

    nghttp2_session_callbacks *cb;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, srv_on_request);
    nghttp2_session *srv;
    nghttp2_session_server_new(&srv, cb, NULL);
    nghttp2_submit_settings(srv, NGHTTP2_FLAG_NONE, NULL, 0);
    int rounds = 0;
    for (; rounds < 1000 && res.n == 0; rounds++) {
        const uint8_t *out;
        size_t n;
        while ((n = h2s_pending(h, &out)) > 0) {
            nghttp2_session_mem_recv(srv, out, n);
            h2s_sent(h, n);
        }
        const uint8_t *so;
        ssize_t sn;
        int moved = 0;
        while ((sn = nghttp2_session_mem_send(srv, &so)) > 0) {
            CHECK(h2s_recv(h, so, (size_t)sn) < 0, "no error at round %d", rounds);
            moved = 1;
        }
        if (!moved && h2s_pending(h, &out) == 0) break; /* stalled: the window never reopened */
    }
    CHECK(res.n == 1 && res.what[0] == H2_RESPONSE && res.status[0] == 200, "the large body completed: n=%d", res.n);
    CHECK(res.n == 1 && res.matched[0] == 1, "its last bytes arrived");
    CHECK(srv_off == BIG, "the server sent it all (%zu)", srv_off);
    nghttp2_session_del(srv);
    nghttp2_session_callbacks_del(cb);
    h2s_free(h);
    h2_req_free(&r);
}

int main(void)
{
    check_request_headers();
    check_response();
    check_errors();
    check_flow_control();
    return finish();
}
