/* A connection's life: connecting, sending, receiving, closing and
 * reopening, and the errors and results that come of it; and HTTP/1.1, the
 * protocol of its own (proto_http1, below; HTTP/2 is h2conn.c's table). */
#include "loop.h"

#include <errno.h>
#include <stdatomic.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>


/* Moves this thread's timeline to the interval of time t (counted phase). */
static void timeline_at(loop_t *L, uint64_t t)
{
    uint64_t idx = (t - L->run->t_count) / L->run->tl->interval_ns;
    /* Responses drained after the end belong to the last interval. */
    if (L->run->t_end && idx > L->tl_last) idx = L->tl_last;
    tl_local_at(&L->tl, (size_t)idx);
}

void count_error(loop_t *L, int kind, uint64_t origin)
{
    if (!counts_event(L, origin)) return;
    L->st->errors[kind]++;
    stage_stats_t *sg = stage_of(L, origin);
    if (sg) sg->errors++;
    timeline_at(L, L->now);
    tl_local_error(&L->tl, kind);
}

/* ---- open model: usable connections by requests in flight ---- */

/* Kept here, where a connection's state and count change, and read by the
 * dispatcher (schedule.c): so conn.c calls nothing of schedule.c. */

static void lv_unlink(loop_t *L, conn_t *c)
{
    if (c->level < 0) return;
    if (c->lv_prev >= 0) L->conns[c->lv_prev].lv_next = c->lv_next;
    else L->lv_head[c->level] = c->lv_next;
    if (c->lv_next >= 0) L->conns[c->lv_next].lv_prev = c->lv_prev;
    c->level = -1;
}

/* Files an open-model connection under its number of requests in flight,
 * or nowhere when it cannot take one more. */
void conn_level_update(loop_t *L, conn_t *c)
{
    if (!L->open) return;
    int usable = c->state == C_UP && c->count < L->depth && (L->o->keep_alive || c->issued == 0) && !c->draining;
    int want = usable ? (int)c->count : -1;
    if (want == c->level) return;
    lv_unlink(L, c);
    if (want < 0) return;
    int32_t i = (int32_t)(c - L->conns);
    c->level = (int16_t)want;
    c->lv_prev = -1;
    c->lv_next = L->lv_head[want];
    if (c->lv_next >= 0) L->conns[c->lv_next].lv_prev = i;
    L->lv_head[want] = i;
}

/* ---- closing and reopening ---- */

void conn_close(loop_t *L, conn_t *c)
{
    if (c->proto->close) c->proto->close(c);
    if (c->tls) L->tp->sock->close(c);
    if (c->fd >= 0) close(c->fd);
    c->handshaking = c->draining = 0;
    if (c->state == C_CONNECTING && L->open) L->nconnecting--;
    c->fd = -1;
    c->state = C_DOWN;
    c->want_out = 0;
    L->inflight -= c->count;
    c->count = c->written = c->head = 0;
    c->wr_off = 0;
    c->served = c->issued = 0;
    c->parser_set = 0;
    conn_level_update(L, c);
}

int closed_has_work(loop_t *L, conn_t *c)
{
    if (L->stopping) return 0;
    if (L->has_budget && L->budget_left == 0 && counted(L, L->now)) return 0;
    if (L->o->repetitions && c->reps >= L->o->repetitions) return 0;
    return 1;
}

/* After a close: reopen now, later (backoff), or leave it for the dispatcher. */
static void conn_down(loop_t *L, conn_t *c, int backoff)
{
    if (backoff) {
        c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : BACKOFF_MIN_MS;
        if (c->backoff_ms > BACKOFF_MAX_MS) c->backoff_ms = BACKOFF_MAX_MS;
        c->retry_at = L->now + (uint64_t)c->backoff_ms * NS_PER_MS;
        return;
    }
    if (L->open) {
        /* Reopened at once (as wrk2 does), not when the next request is due:
         * against a server that closes after every response, latency must
         * not include a handshake the client could have done in advance. */
        if (!L->stopping) conn_connect(L, c);
        return;
    }
    if (closed_has_work(L, c)) conn_connect(L, c);
}

/* The requests in flight will be sent again: they were never answered
 * because the server chose to end the connection, which is not an error. */
static void requeue(loop_t *L, conn_t *c)
{
    /* A count-bounded run that stopped because its last request went out
     * has work again: resume, or these requests would never be sent (the
     * loop stops anew once they are). Bounded: every requeue follows a
     * complete response on that connection, which uses up budget for good.
     * A stop by signal, deadline or stall is final: these are dropped, so
     * not counted as sent again either. */
    if (c->count && L->budget_stop) L->stopping = L->budget_stop = 0;
    for (uint32_t i = 0; i < c->count; i++) {
        slot_t *s = slot_at(L, c, i);
        /* Not an error, but never invisible: a server that drops every
         * second request on a connection shows up here. */
        if (counted(L, L->now) && !L->stopping) L->st->resent++;
        if (counted(L, s->t)) L->st->sent--;
        else if (L->st->warmup_sent) L->st->warmup_sent--;
        if (L->open) {
            if (L->nretry < L->retry_cap) L->retry[L->nretry++] = s->t;
        } else if (counted(L, s->t)) {
            if (L->has_budget) L->budget_left++;
            if (L->o->repetitions && c->reps-- == L->o->repetitions) L->reps_done--;
        }
    }
}

void conn_fail(loop_t *L, conn_t *c, int kind)
{
    if (c->count == 0) {
        count_error(L, kind, L->now);
    } else {
        for (uint32_t i = 0; i < c->count; i++) count_error(L, kind, slot_at(L, c, i)->t);
    }
    conn_close(L, c);
    /* A dead or overloaded server must not make the loop spin: back off after
     * a failed connect, and after the second failure in a row of any kind
     * (a server that accepts and then resets every connection). A complete
     * response ends the streak. */
    int connect_failed = kind == ERR_CONNECT_REFUSED || kind == ERR_CONNECT_TIMEOUT;
    conn_down(L, c, connect_failed || c->fails++ > 0);
}

/* The server ended the connection on purpose (or after a complete response). */
void conn_end(loop_t *L, conn_t *c)
{
    requeue(L, c);
    conn_close(L, c);
    conn_down(L, c, 0);
}

/* ---- connecting ---- */

static void on_connected(loop_t *L, conn_t *c)
{
    const transport_t *tp = L->tp;
    if (tp->sock->handshake) {
        int kind = ERR_HANDSHAKE;
        int r = tp->sock->handshake(L, c, &kind);
        c->handshaking = r == T_AGAIN;
        if (r == T_AGAIN) return;
        if (r == T_FAIL) {
            conn_fail(L, c, kind);
            return;
        }
    }
    /* What was negotiated is a fact of the run (warm-up included); the
     * handshake's time is a figure of the counted phase. */
    if (!L->st->protocol[0]) transport_note_protocol(L, c);
    if (counted(L, L->now)) hist_record(&L->st->handshake, L->now > c->since ? (L->now - c->since) / 1000 : 0);
    if (c->proto->start && c->proto->start(L, c) < 0) return;
    c->state = C_UP;
    if (L->open) L->nconnecting--;
    if (counted(L, L->now)) L->st->opened++;
    L->last_progress = L->now;
    conn_fill(L, c);
}

static int connect_error_kind(int err)
{
    return err == ETIMEDOUT ? ERR_CONNECT_TIMEOUT : ERR_CONNECT_REFUSED;
}

void conn_connect(loop_t *L, conn_t *c)
{
    const target_t *t = L->run->target;
    c->retry_at = 0;
    int fd = socket(t->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        count_error(L, ERR_CONNECT_REFUSED, L->now);
        conn_down(L, c, 1);
        return;
    }
    if (t->family != AF_UNIX && L->nodelay) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    c->fd = fd;
    c->state = C_CONNECTING;
    c->since = L->now;
    if (L->open) L->nconnecting++;
    http_parser_reset(&c->parser, 0, NULL);
    int rc = connect(fd, (const struct sockaddr *)&t->addr, t->addrlen);
    if (rc < 0 && errno != EINPROGRESS) {
        /* EAGAIN: a unix socket whose backlog is full refuses at once. */
        conn_fail(L, c, connect_error_kind(errno));
        return;
    }
    /* Edge-triggered, registered once for both directions: no epoll_ctl per
     * state change (a close-per-response load makes a connection per request). */
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = c};
    if (epoll_ctl(L->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
        conn_fail(L, c, ERR_CONNECT_REFUSED);
        return;
    }
    if (rc == 0) on_connected(L, c);
}

/* ---- sending ---- */

static int can_issue_closed(loop_t *L, conn_t *c)
{
    if (!closed_has_work(L, c)) return 0;
    if (!L->o->keep_alive && c->issued > 0) return 0;
    return !c->draining;
}

void push_request(loop_t *L, conn_t *c, uint64_t origin)
{
    slot_t *s = slot_at(L, c, c->count);
    s->t = origin;
    s->sent = L->now;
    s->req = request_pick(L->rs, &L->rng);
    /* HTTP/2 frames carry their own placeholder (h2.c): always stamped. */
    if (L->o->request_start_warmup) {
        s->bare = L->rs->reqs[s->req].ts_off && !c->proto->always_stamped && (counted(L, origin) || !c->turned);
        c->turned = 1;
    } else
        s->bare = L->rs->reqs[s->req].ts_off && !c->proto->always_stamped &&
                  (L->stamp_seq++ % L->o->request_start_every) != 0;
    if (L->rs->reqs[s->req].ts_off && !s->bare) {
        if (!L->realtime_offset_us) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            L->realtime_offset_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 - (int64_t)(L->now / 1000);
        }
        char digits[32];
        snprintf(digits, sizeof digits, "%016lld", (long long)(L->realtime_offset_us + (int64_t)(L->now / 1000)));
        memcpy(s->ts, digits, REQUEST_TS_DIGITS);
    }
    c->count++;
    c->issued++;
    L->inflight++;
    conn_level_update(L, c);
    if (counted(L, origin)) {
        L->st->sent++;
        stage_stats_t *sg = stage_of(L, origin);
        if (sg) sg->sent++;
    } else {
        L->st->warmup_sent++;
    }
    if (!c->parser_set) {
        const request_t *r = &L->rs->reqs[slot_at(L, c, 0)->req];
        http_parser_reset(&c->parser, r->is_head, &r->expect);
        c->parser_set = 1;
    }
}

/* Closed model: top the connection up to the pipeline depth and send. */
void conn_fill(loop_t *L, conn_t *c)
{
    if (L->open) {
        conn_level_update(L, c);
        if (c->proto->own_output) conn_flush(L, c); /* its replies; due requests follow from the dispatcher */
        return;
    }
    while (c->count < L->depth && can_issue_closed(L, c)) {
        if (counted(L, L->now)) {
            if (L->has_budget) L->budget_left--;
            if (L->o->repetitions && ++c->reps == L->o->repetitions) L->reps_done++;
        }
        push_request(L, c, L->now);
    }
    if (c->written < c->count || c->proto->own_output) conn_flush(L, c);
}

/* "X-Request-Start: t=" before the digits, "\r\n" after: the line a bare
 * request (--request-start-every) leaves out. */
#define TS_PREFIX_LEN 19
#define TS_LINE_LEN (TS_PREFIX_LEN + REQUEST_TS_DIGITS + 2)

/* How many bytes request r takes on the wire in slot s. */
static size_t request_len(const request_t *r, const slot_t *s) { return s->bare ? r->len - TS_LINE_LEN : r->len; }

/* The bytes of request r from off on, as iovecs (up to 3: its timestamp
 * digits come from the slot; a bare one skips the header's line); returns how many. */
static int request_iov(const request_t *r, slot_t *s, size_t off, struct iovec *iov)
{
    if (!r->ts_off) {
        iov[0].iov_base = r->bytes + off;
        iov[0].iov_len = r->len - off;
        return 1;
    }
    size_t line = r->ts_off - TS_PREFIX_LEN;
    struct iovec seg[3] = {{r->bytes, r->ts_off}, {s->ts, REQUEST_TS_DIGITS},
                           {r->bytes + r->ts_off + REQUEST_TS_DIGITS, r->len - r->ts_off - REQUEST_TS_DIGITS}};
    if (s->bare) {
        seg[0].iov_len = line;
        seg[1].iov_base = r->bytes + line + TS_LINE_LEN;
        seg[1].iov_len = r->len - line - TS_LINE_LEN;
        seg[2].iov_len = 0;
    }
    int n = 0;
    for (int i = 0; i < 3; i++) {
        if (off >= seg[i].iov_len) {
            off -= seg[i].iov_len;
            continue;
        }
        iov[n].iov_base = (char *)seg[i].iov_base + off;
        iov[n].iov_len = seg[i].iov_len - off;
        off = 0;
        if (iov[n].iov_len) n++;
    }
    return n;
}

/* HTTP/1.1: the unwritten requests' bytes, as many as the socket takes. */
static void http1_flush(loop_t *L, conn_t *c)
{
    struct iovec iov[64];
    while (c->written < c->count) {
        int n = 0;
        for (uint32_t i = c->written; i < c->count && n <= 61; i++) {
            slot_t *s = slot_at(L, c, i);
            size_t off = i == c->written ? c->wr_off : 0;
            n += request_iov(&L->rs->reqs[s->req], s, off, iov + n);
        }
        ssize_t w = L->tp->sock->writev(c, iov, n);
        if (w < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            if (errno == EINTR) continue;
            /* EPIPE: the server already closed; let the read side tell how. */
            if (errno == EPIPE) {
                c->want_out = 0;
                return;
            }
            conn_fail(L, c, ERR_RESET);
            return;
        }
        size_t left = (size_t)w;
        while (left > 0 && c->written < c->count) {
            const request_t *r = &L->rs->reqs[slot_at(L, c, c->written)->req];
            size_t rest = request_len(r, slot_at(L, c, c->written)) - c->wr_off;
            if (left >= rest) {
                left -= rest;
                c->written++;
                c->wr_off = 0;
            } else {
                c->wr_off += left;
                left = 0;
            }
        }
    }
    /* Edge-triggered: the next EPOLLOUT comes when the socket has room again. */
    c->want_out = c->written < c->count;
}

/* ---- receiving ---- */

/* One response's figures, whatever carried it (HTTP/1.1 here, a stream in h2.c). */
void account_response(loop_t *L, const slot_t *s, int status, int matched)
{
    const request_t *r = &L->rs->reqs[s->req];
    if (L->open || !L->run->t_end ? counted(L, s->t) : counts_event(L, s->t)) {
        uint64_t lat = L->now > s->t ? (L->now - s->t) / 1000 : 0;
        int status_good = status_ok(r->expect_status, status);
        int good = status_good && matched;
        stats_t *st = L->st;
        st->completed++;
        st->status[status]++;
        hist_record(&st->lat, lat);
        if (good) {
            st->good++;
            hist_record(&st->good_lat, lat);
        }
        stage_stats_t *sg = stage_of(L, s->t);
        if (sg) {
            sg->completed++;
            if (good) {
                sg->good++;
                hist_record(&sg->good_lat, lat);
            }
        }
        if (st->nreq) {
            req_stats_t *rq = &st->req[r->group];
            rq->completed++;
            if (good) {
                rq->good++;
                hist_record(&rq->good_lat, lat);
            }
        }
        timeline_at(L, L->now);
        tl_local_response(&L->tl, lat, good);
        if (!status_good) count_error(L, ERR_UNEXPECTED_STATUS, s->t);
        else if (!matched) count_error(L, ERR_BODY_MISMATCH, s->t);
    }
}

/* A response is complete. Returns 0 when the connection was closed. */
static int on_response(loop_t *L, conn_t *c)
{
    http_parser *p = &c->parser;
    account_response(L, slot_at(L, c, 0), p->status, p->matched);
    c->fails = 0;
    c->backoff_ms = 0;
    L->last_progress = L->now;
    c->head = (c->head + 1) % L->depth;
    c->count--;
    if (c->written > 0) c->written--;
    else c->wr_off = 0;
    L->inflight--;
    c->served++;
    c->parser_set = 0;
    conn_level_update(L, c);
    if (!p->keep_alive || !L->o->keep_alive) {
        conn_end(L, c);
        return 0;
    }
    if (c->count) {
        const request_t *next = &L->rs->reqs[slot_at(L, c, 0)->req];
        http_parser_reset(p, next->is_head, &next->expect);
        c->parser_set = 1;
    }
    return 1;
}

/* The first unparsable response of a run is described on stderr (the
 * engine's log): the parser's reason and the bytes of that read, escaped, so
 * that a count in errors.parse can be traced to what the server sent. */
static void tell_parse_error(const conn_t *c, const char *buf, size_t len, size_t at)
{
    static atomic_flag told = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&told)) return;
    char out[4 * 160 + 1];
    size_t o = 0;
    size_t from = at > 80 ? at - 80 : 0;
    for (size_t i = from; i < len && i < from + 160; i++) {
        unsigned char ch = (unsigned char)buf[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\\') out[o++] = (char)ch;
        else o += (size_t)snprintf(out + o, sizeof out - o, "\\x%02x", ch);
    }
    out[o] = 0;
    fprintf(stderr, "arena-load: unparsable response (%s) at byte %zu of a %zu-byte read, after %llu responses on the connection; bytes from %zu: %s\n",
            c->parser.error ? c->parser.error : "?", at, len, (unsigned long long)c->served, from, out);
}

/* Bytes arrived. Returns 0 when the connection was closed. */
static int http1_on_bytes(loop_t *L, conn_t *c, const char *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        if (c->count == 0) {
            /* Nothing asked: e.g. a 408 on an idle connection. Start afresh. */
            conn_end(L, c);
            return 0;
        }
        size_t used = http_parser_feed(&c->parser, buf + off, len - off);
        if (c->parser.state == HP_ERROR) tell_parse_error(c, buf, len, off + used);
        off += used;
        if (c->parser.state == HP_DONE) {
            if (!on_response(L, c)) return 0;
        } else if (c->parser.state == HP_ERROR) {
            conn_fail(L, c, ERR_PARSE);
            return 0;
        }
    }
    return 1;
}

/* The server closed with requests in flight (on_eof took the idle case). */
static void http1_on_eof(loop_t *L, conn_t *c)
{
    if (http_parser_eof(&c->parser)) {
        on_response(L, c); /* closes: keep_alive is 0 */
        return;
    }
    if (c->parser.nread == 0 && c->served > 0) {
        /* Closed between responses (e.g. keep-alive limit) before reading
         * the next request: retry it on a new connection. */
        conn_end(L, c);
        return;
    }
    conn_fail(L, c, ERR_CLOSED_BEFORE_RESPONSE);
}

/* No start and no close: the parser is reset at connect and per response,
 * and a connection holds nothing else of the protocol. */
const conn_proto proto_http1 = {
    .name = "http/1.1",
    .on_bytes = http1_on_bytes,
    .flush = http1_flush,
    .on_eof = http1_on_eof,
};

/* ---- the connection's events, whatever its protocol ---- */

static void on_eof(loop_t *L, conn_t *c)
{
    if (c->count == 0) {
        conn_end(L, c);
        return;
    }
    c->proto->on_eof(L, c);
}

/* Edge-triggered: a short read means the socket was drained, except that a
 * close reported with the data (hup) is only seen by reading on to 0. */
static void on_readable(loop_t *L, conn_t *c, int hup)
{
    for (;;) {
        ssize_t n = L->tp->sock->read(c, L->rbuf, READ_BUF);
        if (n > 0) {
            L->now = now_ns();
            if (counted(L, L->now)) L->st->bytes += (uint64_t)n;
            if (!c->proto->on_bytes(L, c, L->rbuf, (size_t)n)) return;
            /* A TLS read returns one record: only EAGAIN says the socket is drained. */
            if ((size_t)n < READ_BUF && !hup && L->tp->sock == &sock_plain) break;
            continue;
        }
        if (n == 0) {
            L->now = now_ns();
            on_eof(L, c);
            return;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        L->now = now_ns();
        if (c->count == 0 || (c->served > 0 && c->parser.nread == 0)) {
            /* An idle connection was reset, or the server closed after a
             * complete response and its kernel answered our next request
             * with RST: not an error, retry. */
            conn_end(L, c);
            return;
        }
        conn_fail(L, c, ERR_RESET);
        return;
    }
    conn_fill(L, c);
}

void conn_event(loop_t *L, conn_t *c, uint32_t events)
{
    if (c->handshaking) {
        on_connected(L, c);
        if (c->state != C_UP) return;
        /* The handshake's last read may have left the server's first bytes
         * (HTTP/2 SETTINGS, a session ticket) behind this edge: read now. */
        events |= EPOLLIN;
    } else if (c->state == C_CONNECTING) {
        /* Writable without an error: connected (no getsockopt needed). */
        int err = 0;
        if (events & (EPOLLERR | EPOLLHUP) || !(events & EPOLLOUT)) {
            socklen_t len = sizeof err;
            if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) err = errno;
            if (!err && !(events & EPOLLOUT)) return; /* not connected yet */
        }
        if (err) {
            conn_fail(L, c, connect_error_kind(err));
            return;
        }
        if (events & (EPOLLOUT | EPOLLIN | EPOLLHUP)) on_connected(L, c);
        if (c->state != C_UP || !(events & EPOLLIN)) return;
    }
    if (c->state != C_UP) return;
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
        on_readable(L, c, (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0);
        if (c->state != C_UP) return;
    }
    if ((events & EPOLLOUT) && c->want_out) conn_flush(L, c);
}
