/* The load loop: non-blocking sockets on one epoll instance per thread.
 *
 * Closed model: every connection sends its next request as soon as the
 * previous response is complete (up to -p in flight), until the budget (-n,
 * -r) or the duration is spent.
 *
 * Open model: requests are due on a constant schedule (intended time of
 * request k = start + k / rate). A due request goes out on any connection with
 * room; when there is none it waits (a backlog that is only a counter) and a
 * closed connection is opened. Latency runs from the intended time, so a
 * stalled server shows in the percentiles instead of slowing the schedule.
 *
 * A connection that fails counts one error of that kind for every request in
 * flight on it (or one error when none was), is closed and reopened. A server
 * that closes after a complete response, or with `Connection: close`, is
 * normal: unanswered pipelined requests are sent again on a new connection.
 */
#include "worker.h"
#include "clock.h"
#include "parser.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define READ_BUF (64 * 1024)
#define MAX_EVENTS 256
#define SCAN_NS (10 * NS_PER_MS)
#define LATE_NS NS_PER_MS
#define BACKOFF_MIN_MS 10
#define BACKOFF_MAX_MS 500
#define STALL_NS (10 * NS_PER_S)

enum { C_DOWN, C_CONNECTING, C_UP };

typedef struct {
    uint64_t t;      /* latency origin: send time (closed) or intended time (open) */
    uint64_t sent;   /* when it was handed to the kernel (for the timeout) */
    uint32_t req;
} slot_t;

typedef struct {
    int fd;
    uint8_t state;
    uint8_t want_out;   /* EPOLLOUT registered */
    int16_t level;      /* open model: in the list of connections with this many in flight, -1 none */
    uint8_t parser_set; /* parser prepared for the head request */
    uint32_t head, count, written;
    size_t wr_off;
    uint64_t reps;      /* counted requests sent (-r) */
    uint64_t served;    /* responses on the current TCP connection */
    uint64_t issued;    /* requests sent on the current TCP connection */
    uint64_t since;     /* connect start */
    uint64_t retry_at;  /* reconnect no earlier than this (0: not waiting) */
    uint32_t backoff_ms;
    uint32_t fails;     /* failures since the last complete response */
    int32_t lv_prev, lv_next;
    http_parser parser;
    slot_t *slots;
} conn_t;

typedef struct {
    worker_t *w;
    run_t *run;
    const options_t *o;
    const request_set *rs;
    stats_t *st;
    tl_local_t tl;
    size_t tl_last;     /* the last interval of a timed run (drained responses go there) */
    int ep;
    conn_t *conns;
    int n;
    uint32_t depth;
    int nodelay;        /* TCP_NODELAY needed: pipelining or requests of several segments */
    char *rbuf;
    uint64_t now;
    int open;
    int stopping;
    int budget_stop;    /* stopping only because -n/-r (or an -n schedule) is spent */
    int abandon;        /* closed -d run at its deadline: in-flight requests are left, not timed out */
    uint64_t stop_at, drain_deadline;
    uint64_t inflight;
    uint64_t rng;
    uint64_t next_scan;
    uint64_t last_progress;
    /* closed model */
    uint64_t budget_left;
    int has_budget;
    int reps_done;      /* connections that sent all their -r */
    /* open model */
    double interval;
    uint64_t sched_start;
    uint64_t issued, max_issue;
    uint64_t *retry;    /* intended times of requests to send again */
    uint32_t nretry, retry_cap;
    int32_t *lv_head;   /* per in-flight count: usable connections (doubly linked) */
    uint32_t *down_stack, ndown, down_cap;
    uint32_t nconnecting;
} loop_t;

static void conn_connect(loop_t *L, conn_t *c);
static void conn_flush(loop_t *L, conn_t *c);
static void conn_fill(loop_t *L, conn_t *c);

static inline int counted(const loop_t *L, uint64_t t)
{
    return t >= L->run->t_count;
}

/* Does a response or an error that happens now, for a request started at
 * `origin`, belong to the results? In a closed-model run with a duration, an
 * event counts when it happens inside the counted phase, whenever its request
 * went out (as wrk counts): a slow request begun in the warm-up that fails
 * during the phase is a failure of the phase, and the per-second timeline
 * shows completions when they happen. In the open model, latency is owed
 * from the intended start, so a request belongs to the phase it was due in;
 * a run bounded by -n or -r counts the requests it sent, so totals are exact. */
static inline int counts_event(const loop_t *L, uint64_t origin)
{
    if (L->open) return counted(L, origin) && counted(L, L->now);
    /* A closed run ends at the signal: what is drained after it is not counted
     * (the duration ends there too). */
    uint64_t sig = atomic_load_explicit(&L->run->stop_ns, memory_order_relaxed);
    if (sig && L->now > sig) return 0;
    if (!L->run->t_end) return counted(L, origin) && counted(L, L->now);
    return counted(L, L->now) && L->now <= L->run->t_end;
}

static inline slot_t *slot_at(loop_t *L, conn_t *c, uint32_t i)
{
    return &c->slots[(c->head + i) % L->depth];
}

/* Moves this thread's timeline to the interval of time t (counted phase). */
static void timeline_at(loop_t *L, uint64_t t)
{
    uint64_t idx = (t - L->run->t_count) / L->run->tl->interval_ns;
    /* Responses drained after the end belong to the last interval. */
    if (L->run->t_end && idx > L->tl_last) idx = L->tl_last;
    tl_local_at(&L->tl, (size_t)idx);
}

static void count_error(loop_t *L, int kind, uint64_t origin)
{
    if (!counts_event(L, origin)) return;
    L->st->errors[kind]++;
    timeline_at(L, L->now);
    tl_local_error(&L->tl, kind);
}

/* ---- open model: usable connections by requests in flight ---- */

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
static void lv_update(loop_t *L, conn_t *c)
{
    if (!L->open) return;
    int usable = c->state == C_UP && c->count < L->depth && (L->o->keep_alive || c->issued == 0);
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

static void conn_close(loop_t *L, conn_t *c)
{
    if (c->fd >= 0) close(c->fd);
    if (c->state == C_CONNECTING && L->open) L->nconnecting--;
    c->fd = -1;
    c->state = C_DOWN;
    c->want_out = 0;
    L->inflight -= c->count;
    c->count = c->written = c->head = 0;
    c->wr_off = 0;
    c->served = c->issued = 0;
    c->parser_set = 0;
    lv_update(L, c);
}

static int closed_has_work(loop_t *L, conn_t *c)
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
        if (L->open) {
            if (L->nretry < L->retry_cap) L->retry[L->nretry++] = s->t;
        } else if (counted(L, s->t)) {
            if (L->has_budget) L->budget_left++;
            if (L->o->repetitions && c->reps-- == L->o->repetitions) L->reps_done--;
        }
    }
}

static void conn_fail(loop_t *L, conn_t *c, int kind)
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
static void conn_end(loop_t *L, conn_t *c)
{
    requeue(L, c);
    conn_close(L, c);
    conn_down(L, c, 0);
}

/* ---- connecting ---- */

static void on_connected(loop_t *L, conn_t *c)
{
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

static void conn_connect(loop_t *L, conn_t *c)
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
    return 1;
}

static void push_request(loop_t *L, conn_t *c, uint64_t origin)
{
    slot_t *s = slot_at(L, c, c->count);
    s->t = origin;
    s->sent = L->now;
    s->req = request_pick(L->rs, &L->rng);
    c->count++;
    c->issued++;
    L->inflight++;
    lv_update(L, c);
    if (counted(L, origin)) L->st->sent++;
    if (!c->parser_set) {
        const request_t *r = &L->rs->reqs[slot_at(L, c, 0)->req];
        http_parser_reset(&c->parser, r->is_head, &r->expect);
        c->parser_set = 1;
    }
}

/* Closed model: top the connection up to the pipeline depth and send. */
static void conn_fill(loop_t *L, conn_t *c)
{
    if (L->open) {
        lv_update(L, c);
        return;
    }
    while (c->count < L->depth && can_issue_closed(L, c)) {
        if (counted(L, L->now)) {
            if (L->has_budget) L->budget_left--;
            if (L->o->repetitions && ++c->reps == L->o->repetitions) L->reps_done++;
        }
        push_request(L, c, L->now);
    }
    if (c->written < c->count) conn_flush(L, c);
}

static void conn_flush(loop_t *L, conn_t *c)
{
    struct iovec iov[64];
    while (c->written < c->count) {
        int n = 0;
        for (uint32_t i = c->written; i < c->count && n < 64; i++, n++) {
            const request_t *r = &L->rs->reqs[slot_at(L, c, i)->req];
            size_t off = i == c->written ? c->wr_off : 0;
            iov[n].iov_base = r->bytes + off;
            iov[n].iov_len = r->len - off;
        }
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t w = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
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
            size_t rest = r->len - c->wr_off;
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

/* A response is complete. Returns 0 when the connection was closed. */
static int on_response(loop_t *L, conn_t *c)
{
    slot_t *s = slot_at(L, c, 0);
    const request_t *r = &L->rs->reqs[s->req];
    http_parser *p = &c->parser;
    if (L->open || !L->run->t_end ? counted(L, s->t) : counts_event(L, s->t)) {
        uint64_t lat = L->now > s->t ? (L->now - s->t) / 1000 : 0;
        int status_good = status_ok(r->expect_status, p->status);
        int good = status_good && p->matched;
        stats_t *st = L->st;
        st->completed++;
        st->status[p->status]++;
        hist_record(&st->lat, lat);
        if (good) {
            st->good++;
            hist_record(&st->good_lat, lat);
        }
        timeline_at(L, L->now);
        tl_local_response(&L->tl, lat, good);
        if (!status_good) count_error(L, ERR_UNEXPECTED_STATUS, s->t);
        else if (!p->matched) count_error(L, ERR_BODY_MISMATCH, s->t);
    }
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
    lv_update(L, c);
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

/* Bytes arrived. Returns 0 when the connection was closed. */
static int on_bytes(loop_t *L, conn_t *c, const char *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        if (c->count == 0) {
            /* Nothing asked: e.g. a 408 on an idle connection. Start afresh. */
            conn_end(L, c);
            return 0;
        }
        off += http_parser_feed(&c->parser, buf + off, len - off);
        if (c->parser.state == HP_DONE) {
            if (!on_response(L, c)) return 0;
        } else if (c->parser.state == HP_ERROR) {
            conn_fail(L, c, ERR_PARSE);
            return 0;
        }
    }
    return 1;
}

static void on_eof(loop_t *L, conn_t *c)
{
    if (c->count == 0) {
        conn_end(L, c);
        return;
    }
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

/* Edge-triggered: a short read means the socket was drained, except that a
 * close reported with the data (hup) is only seen by reading on to 0. */
static void on_readable(loop_t *L, conn_t *c, int hup)
{
    for (;;) {
        ssize_t n = read(c->fd, L->rbuf, READ_BUF);
        if (n > 0) {
            L->now = now_ns();
            if (counted(L, L->now)) L->st->bytes += (uint64_t)n;
            if (!on_bytes(L, c, L->rbuf, (size_t)n)) return;
            if ((size_t)n < READ_BUF && !hup) break;
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

static void on_event(loop_t *L, conn_t *c, uint32_t events)
{
    if (c->state == C_CONNECTING) {
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

/* ---- open model schedule ---- */

static uint64_t intended(const loop_t *L, uint64_t k)
{
    return L->sched_start + (uint64_t)((double)k * L->interval);
}

/* Requests whose intended time has come (bounded by -n and the duration). */
static uint64_t due_count(const loop_t *L, uint64_t now)
{
    if (now < L->sched_start) return 0;
    uint64_t due = (uint64_t)((double)(now - L->sched_start) / L->interval) + 1;
    return due < L->max_issue ? due : L->max_issue;
}

/* Sends the due requests (and those to send again). A request goes to an idle
 * connection; when there is none, closed connections are opened (as many as
 * requests wait) and waited for; it queues behind a busy connection (-p > 1,
 * the least loaded) only when no connection can be opened: the client's own
 * queueing must not land in the latency. Returns how many requests are still
 * waiting (the backlog). */
static uint64_t dispatch(loop_t *L)
{
    uint64_t due = due_count(L, L->now);
    for (;;) {
        uint64_t pending = L->nretry + (due - L->issued);
        if (pending == 0) return 0;
        conn_t *c = L->lv_head[0] >= 0 ? &L->conns[L->lv_head[0]] : NULL;
        if (!c) {
            while (L->ndown > 0 && L->nconnecting < pending) {
                conn_t *d = &L->conns[L->down_stack[--L->ndown]];
                if (d->state == C_DOWN && !d->retry_at) conn_connect(L, d);
            }
            if (L->lv_head[0] >= 0) continue; /* a unix socket connects at once */
            if (L->nconnecting > 0) return pending;
            for (uint32_t lv = 1; lv < L->depth && !c; lv++)
                if (L->lv_head[lv] >= 0) c = &L->conns[L->lv_head[lv]];
            if (!c) return pending;
        }
        uint64_t t;
        if (L->nretry > 0) {
            /* Sent again: it was counted late (or not) when first sent. */
            t = L->retry[--L->nretry];
        } else {
            t = intended(L, L->issued++);
            if (counted(L, t) && L->now > t + LATE_NS) L->st->late++;
        }
        push_request(L, c, t);
        conn_flush(L, c);
    }
}

/* Requests that were due in the counted phase but never went out. Each is
 * recorded in the latency histogram with the time from its intended start
 * to the end of the run (a lower bound of what it would have taken), so a
 * run that could not send shows it in its percentiles instead of reporting
 * a p99 of only what got through. */
static void count_dropped(loop_t *L)
{
    uint64_t due = due_count(L, L->stop_at);
    uint64_t end = L->stop_at;
    for (uint64_t k = L->issued; k < due; k++) {
        uint64_t t = intended(L, k);
        if (!counted(L, t)) continue;
        L->st->dropped++;
        hist_record(&L->st->lat, end > t ? (end - t) / 1000 : 0);
    }
    for (uint32_t i = 0; i < L->nretry; i++) {
        uint64_t t = L->retry[i];
        if (!counted(L, t)) continue;
        L->st->dropped++;
        hist_record(&L->st->lat, end > t ? (end - t) / 1000 : 0);
    }
    L->issued = due;
    L->nretry = 0;
}

/* ---- timers ---- */

static void scan(loop_t *L)
{
    uint64_t now = L->now;
    for (int i = 0; i < L->n; i++) {
        conn_t *c = &L->conns[i];
        if (c->state == C_CONNECTING && now - c->since > L->run->connect_timeout_ns) {
            conn_fail(L, c, ERR_CONNECT_TIMEOUT);
        } else if (c->state == C_UP && c->count > 0 && now - slot_at(L, c, 0)->sent > L->run->timeout_ns) {
            conn_fail(L, c, ERR_TIMEOUT);
        } else if (c->state == C_DOWN && c->retry_at && now >= c->retry_at) {
            c->retry_at = 0;
            if (L->open && L->ndown < L->down_cap) L->down_stack[L->ndown++] = (uint32_t)i;
            else if (closed_has_work(L, c)) conn_connect(L, c);
        }
    }
}

static void begin_stop(loop_t *L, uint64_t at, int budget, int final)
{
    L->stopping = 1;
    L->budget_stop = budget;
    L->stop_at = at;
    L->drain_deadline = L->now + L->run->timeout_ns;
    /* A closed-model run that ends at its deadline or a signal counts nothing
     * after it (counts_event), so in-flight requests are not waited for: a
     * server that never answers them would only hold the run open. */
    if (!L->open && final) {
        L->drain_deadline = L->now;
        L->abandon = 1;
    }
    /* A spent schedule has nothing left to drop (and a requeue may resume it). */
    if (L->open && !budget) count_dropped(L);
    /* Connections waiting to be reopened or idle are not needed any more. */
    for (int i = 0; i < L->n; i++) {
        conn_t *c = &L->conns[i];
        c->retry_at = 0;
        if (c->state == C_CONNECTING || (c->state == C_UP && c->count == 0)) conn_close(L, c);
    }
}

static int wait_events(loop_t *L, struct epoll_event *evs, uint64_t wait_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(wait_ns / NS_PER_S), .tv_nsec = (long)(wait_ns % NS_PER_S)};
    static _Thread_local int no_pwait2;
    if (!no_pwait2) {
        int n = epoll_pwait2(L->ep, evs, MAX_EVENTS, &ts, NULL);
        if (n >= 0 || errno != ENOSYS) return n;
        no_pwait2 = 1;
    }
    return epoll_wait(L->ep, evs, MAX_EVENTS, (int)((wait_ns + NS_PER_MS - 1) / NS_PER_MS));
}

static int loop_init(loop_t *L, worker_t *w)
{
    memset(L, 0, sizeof *L);
    L->ep = -1;
    L->w = w;
    L->run = w->run;
    L->o = w->run->o;
    L->rs = w->run->reqs;
    L->st = &w->stats;
    L->n = w->nconns;
    L->depth = (uint32_t)L->o->pipeline;
    /* One small request per round trip is never held by Nagle (nothing of ours
     * is unacknowledged when it is sent); pipelined or multi-segment requests
     * may be. */
    L->nodelay = L->depth > 1;
    for (size_t i = 0; i < L->rs->n; i++)
        if (L->rs->reqs[i].len > 8192) L->nodelay = 1;
    L->open = w->rate > 0;
    L->rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)(w->id + 1) * 0xBF58476D1CE4E5B9ull);
    L->ep = epoll_create1(EPOLL_CLOEXEC);
    L->rbuf = malloc(READ_BUF);
    L->conns = calloc((size_t)L->n, sizeof *L->conns);
    /* Every descriptor is -1 before anything can fail: loop_free closes
     * only what was opened (calloc's 0 would be stdin). */
    for (int i = 0; L->conns && i < L->n; i++) {
        L->conns[i].fd = -1;
        L->conns[i].level = -1;
    }
    slot_t *slots = L->conns ? calloc((size_t)L->n * L->depth, sizeof *slots) : NULL;
    for (int i = 0; slots && i < L->n; i++) L->conns[i].slots = slots + (size_t)i * L->depth;
    if (L->ep < 0 || !L->rbuf || !L->conns || !slots) return -1;
    if (tl_local_init(&L->tl, w->run->tl) < 0) return -1;
    if (L->run->t_end) L->tl_last = (size_t)((L->run->t_end - L->run->t_count - 1) / L->run->tl->interval_ns);
    L->has_budget = w->budget > 0;
    L->budget_left = w->budget;
    if (L->open) {
        L->interval = 1e9 / w->rate;
        int nthreads = L->o->threads;
        L->sched_start = L->run->t0 + (uint64_t)(L->interval * w->id / nthreads);
        L->max_issue = UINT64_MAX;
        if (L->run->t_end) {
            /* Only requests intended before the end are scheduled. */
            uint64_t span = L->run->t_end > L->sched_start ? L->run->t_end - L->sched_start : 0;
            uint64_t k = (uint64_t)((double)span / L->interval);
            while (k > 0 && intended(L, k - 1) >= L->run->t_end) k--;
            while (intended(L, k) < L->run->t_end) k++;
            L->max_issue = k;
        }
        if (w->budget) {
            uint64_t k0 = 0;
            while (intended(L, k0) < L->run->t_count) k0++;
            if (k0 + w->budget < L->max_issue) L->max_issue = k0 + w->budget;
        }
        L->retry_cap = L->n * L->depth;
        L->retry = calloc(L->retry_cap, sizeof *L->retry);
        L->lv_head = malloc(L->depth * sizeof *L->lv_head);
        L->down_cap = (uint32_t)L->n * 2 + 1;
        L->down_stack = calloc(L->down_cap, sizeof *L->down_stack);
        if (!L->retry || !L->lv_head || !L->down_stack) return -1;
        for (uint32_t i = 0; i < L->depth; i++) L->lv_head[i] = -1;
    }
    return 0;
}

static void loop_free(loop_t *L)
{
    for (int i = 0; i < L->n; i++)
        if (L->conns && L->conns[i].fd >= 0) close(L->conns[i].fd);
    if (L->conns) free(L->conns[0].slots);
    free(L->conns);
    free(L->rbuf);
    free(L->retry);
    free(L->lv_head);
    tl_local_free(&L->tl);
    free(L->down_stack);
    if (L->ep >= 0) close(L->ep);
}

static void run_loop(loop_t *L)
{
    run_t *run = L->run;
    struct epoll_event evs[MAX_EVENTS];
    L->now = now_ns();
    L->last_progress = L->now;
    L->next_scan = L->now + SCAN_NS;
    uint64_t stall_ns = 2 * run->timeout_ns > STALL_NS ? 2 * run->timeout_ns : STALL_NS;

    int counting = counted(L, L->now);
    if (L->open) {
        for (int i = L->n - 1; i >= 0; i--) L->down_stack[L->ndown++] = (uint32_t)i;
    } else {
        for (int i = 0; i < L->n; i++) conn_connect(L, &L->conns[i]);
    }

    for (;;) {
        int stop = atomic_load_explicit(&run->stop, memory_order_relaxed);
        if (!counting && counted(L, L->now)) {
            /* Connections opened in the warm-up serve the counted phase too. */
            counting = 1;
            for (int i = 0; i < L->n; i++) L->st->opened += L->conns[i].state == C_UP;
        }
        /* Due requests go out before the deadline check: a loop that wakes a
         * little after the end must not drop what was due before it. */
        uint64_t backlog = L->open && !L->stopping && !stop ? dispatch(L) : 0;
        if (!L->stopping) {
            int budget_spent = !L->open && counted(L, L->now) &&
                               ((L->has_budget && L->budget_left == 0) ||
                                (L->o->repetitions && L->reps_done == L->n));
            int schedule_spent = L->open && L->issued >= L->max_issue && L->nretry == 0;
            if (stop) begin_stop(L, L->now, 0, 1);
            else if (run->t_end && L->now >= run->t_end) begin_stop(L, run->t_end, 0, 1);
            else if (budget_spent) begin_stop(L, 0, 1, 0);
            /* The schedule of a timed run covers the whole duration. */
            else if (schedule_spent) begin_stop(L, run->t_end, 1, 0);
            else if (!run->t_end && L->now - L->last_progress > stall_ns) begin_stop(L, L->now, 0, 0);
        } else if (stop) {
            /* A signal while draining makes the stop final. */
            L->budget_stop = 0;
        }
        if (L->stopping && L->inflight > 0 && L->now >= L->drain_deadline && stop < 2 && !L->abandon) {
            /* Nothing is sent while stopping, so every request still in
             * flight went out at least --timeout ago: count it as a timeout
             * here, or it would leave the run uncounted between two scans. */
            for (int i = 0; i < L->n; i++)
                if (L->conns[i].state == C_UP && L->conns[i].count > 0) conn_fail(L, &L->conns[i], ERR_TIMEOUT);
        }
        if (L->stopping && (L->inflight == 0 || L->now >= L->drain_deadline || stop >= 2)) break;

        uint64_t wait = L->next_scan > L->now ? L->next_scan - L->now : 0;
        /* With a backlog no connection is free: the next due request could
         * not go out either, so wait for a connection (an event) or the scan
         * rather than spin. */
        if (L->open && !L->stopping && L->issued < L->max_issue && !backlog) {
            uint64_t next = intended(L, L->issued);
            uint64_t gap = next > L->now ? next - L->now : 0;
            if (gap < wait) wait = gap;
        }
        if (run->t_end && !L->stopping && run->t_end > L->now && run->t_end - L->now < wait) wait = run->t_end - L->now;
        if (L->stopping && L->drain_deadline - L->now < wait) wait = L->drain_deadline - L->now;

        int n = wait_events(L, evs, wait);
        L->now = now_ns();
        for (int i = 0; i < n; i++) on_event(L, (conn_t *)evs[i].data.ptr, evs[i].events);
        if (L->now >= L->next_scan) {
            scan(L);
            L->next_scan = L->now + SCAN_NS;
        }
    }
    /* End of the counted phase as this thread saw it: the deadline, the
     * signal, or (budget runs) the last response. */
    L->w->finish_ns = L->stop_at ? L->stop_at : L->now;
    tl_local_close(&L->tl, L->tl.idx + 1);
}

void *worker_main(void *arg)
{
    worker_t *w = arg;
    loop_t L;
    if (w->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(w->cpu, &set);
        int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
        if (rc != 0) snprintf(w->error, sizeof w->error, "cannot pin thread to CPU %d: %s", w->cpu, strerror(rc));
    }
    if (!w->error[0]) {
        if (loop_init(&L, w) < 0) snprintf(w->error, sizeof w->error, "out of memory or descriptors");
        else run_loop(&L);
        loop_free(&L);
    }
    atomic_fetch_sub(&w->run->running, 1);
    return NULL;
}
