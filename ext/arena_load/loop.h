/* The load loop's shared state, private to worker.c (the event loop),
 * conn.c (a connection's life: connect, send, receive, close) and schedule.c
 * (the open model's schedule and dispatch).
 *
 * Closed model: every connection sends its next request as soon as the
 * previous response is complete (up to -p in flight), until the budget (-n,
 * -r) or the duration is spent.
 *
 * Open model: requests are due on a constant schedule (intended time of
 * request k = start + k / rate). A due request goes out on an idle
 * connection; when there is none it waits (a backlog that is only a counter)
 * and closed connections are opened. Latency runs from the intended time, so
 * a stalled server shows in the percentiles instead of slowing the schedule.
 *
 * A connection that fails counts one error of that kind for every request in
 * flight on it (or one error when none was), is closed and reopened. A server
 * that closes after a complete response, or with `Connection: close`, is
 * normal: unanswered pipelined requests are sent again on a new connection.
 */
#ifndef ARENA_LOOP_H
#define ARENA_LOOP_H

#include "clock.h"
#include "parser.h"
#include "transport.h"
#include "worker.h"

#include <stdatomic.h>
#include <stdint.h>

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
    int32_t stream;  /* HTTP/2: its stream id once submitted */
    char ts[16];     /* --request-start: its X-Request-Start digits (REQUEST_TS_DIGITS) */
    uint8_t bare;    /* --request-start-every: this one is sent without the header */
} slot_t;

typedef struct conn_s {
    int fd;
    uint8_t state;
    uint8_t handshaking; /* connected, transport handshake under way (state stays C_CONNECTING) */
    uint8_t draining;    /* HTTP/2 GOAWAY received: finish what is in flight, send nothing new */
    uint8_t want_out;   /* EPOLLOUT registered */
    int16_t level;      /* open model: in the list of connections with this many in flight, -1 none */
    uint8_t parser_set; /* parser prepared for the head request */
    uint8_t turned;     /* its first request of the run was pushed (--request-start-warmup) */
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
    void *tls;          /* the transport's per-connection state (tls.c) */
    void *tls_session;  /* the last session the server gave, offered again with --tls-resume */
    void *h2;           /* HTTP/2 session (h2conn.c) */
    const conn_proto *proto; /* its protocol, set with the connection (loop_init) */
} conn_t;

typedef struct loop_s {
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
    const transport_t *tp; /* chosen once for the run: every connection uses it */
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
    int64_t realtime_offset_us; /* wall clock minus the monotonic clock (X-Request-Start) */
    uint64_t stamp_seq;         /* --request-start-every: requests pushed so far */
    double interval;
    const profile_t *profile; /* --profile: the schedule follows its stages (NULL: a constant rate) */
    double phase, share;      /* this thread's offset in the count, and its share of the rate */
    uint64_t sched_start;
    uint64_t issued, max_issue;
    uint64_t *retry;    /* intended times of requests to send again */
    uint32_t nretry, retry_cap;
    int32_t *lv_head;   /* per in-flight count: usable connections (doubly linked) */
    uint32_t *down_stack, ndown, down_cap;
    uint32_t nconnecting;
} loop_t;

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

/* The profile stage a request intended at t belongs to (NULL: none). */
static inline stage_stats_t *stage_of(const loop_t *L, uint64_t t)
{
    if (!L->st->nstage || t < L->run->t_count) return NULL;
    int i = profile_stage_at(&L->o->profile, (double)(t - L->run->t_count) / 1e9);
    return i < 0 ? NULL : &L->st->stage[i];
}

static inline slot_t *slot_at(loop_t *L, conn_t *c, uint32_t i)
{
    return &c->slots[(c->head + i) % L->depth];
}

/* conn.c: a connection's life. schedule.c calls into it (conn_connect,
 * push_request, conn_flush) and it calls nothing of schedule.c: the usable-
 * connection lists both use are kept here (conn_level_update), so the
 * dependency goes one way, schedule.c -> conn.c. */
void count_error(loop_t *L, int kind, uint64_t origin);
void conn_connect(loop_t *L, conn_t *c);
void conn_close(loop_t *L, conn_t *c);
void conn_fail(loop_t *L, conn_t *c, int kind);
int closed_has_work(loop_t *L, conn_t *c);
void push_request(loop_t *L, conn_t *c, uint64_t origin);
void conn_event(loop_t *L, conn_t *c, uint32_t events);
void conn_end(loop_t *L, conn_t *c);
void conn_fill(loop_t *L, conn_t *c);
void account_response(loop_t *L, const slot_t *s, int status, int matched);
void conn_level_update(loop_t *L, conn_t *c);
void transport_conn_free(loop_t *L, conn_t *c);

/* Sends what the connection has pushed (and what its protocol owes). */
static inline void conn_flush(loop_t *L, conn_t *c)
{
    c->proto->flush(L, c);
}

/* schedule.c: the open model (worker.c calls it; conn.c does not). */
int sched_init(loop_t *L, const worker_t *w);
void sched_free(loop_t *L);
uint64_t sched_intended(const loop_t *L, uint64_t k);
uint64_t sched_dispatch(loop_t *L);
void sched_count_dropped(loop_t *L);

#endif
