/* One load thread's event loop: set-up, the epoll wait, the timers (connect
 * and response timeouts, back-off), the decision to stop and the drain. A
 * connection's life is in conn.c, the open model's schedule in schedule.c;
 * loop.h holds what they share. */
#include "loop.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

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
    if (L->open && !budget) sched_count_dropped(L);
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
    L->tp = w->run->tp ? w->run->tp : &transport_default;
    L->depth = (uint32_t)(L->tp->h2 ? L->o->h2_streams : L->o->pipeline);
    /* One small request per round trip is never held by Nagle (nothing of ours
     * is unacknowledged when it is sent); pipelined or multi-segment requests
     * may be. */
    L->nodelay = L->depth > 1 || L->tp->tls || L->tp->h2; /* TLS: the handshake's last write and the request */
    for (size_t i = 0; i < L->rs->n; i++)
        if (L->rs->reqs[i].len > 8192) L->nodelay = 1;
    L->open = w->rate > 0;
    L->rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)(w->id + 1) * 0xBF58476D1CE4E5B9ull);
    L->ep = epoll_create1(EPOLL_CLOEXEC);
    L->rbuf = malloc(READ_BUF);
    L->conns = calloc((size_t)L->n, sizeof *L->conns);
    /* The protocol is the run's, chosen here once: conn.c calls its table
     * and never asks which it is. */
    const conn_proto *proto = L->tp->h2 ? &proto_h2 : &proto_http1;
    /* Every descriptor is -1 before anything can fail: loop_free closes
     * only what was opened (calloc's 0 would be stdin). */
    for (int i = 0; L->conns && i < L->n; i++) {
        L->conns[i].fd = -1;
        L->conns[i].level = -1;
        L->conns[i].proto = proto;
    }
    slot_t *slots = L->conns ? calloc((size_t)L->n * L->depth, sizeof *slots) : NULL;
    for (int i = 0; slots && i < L->n; i++) L->conns[i].slots = slots + (size_t)i * L->depth;
    if (L->ep < 0 || !L->rbuf || !L->conns || !slots) return -1;
    if (tl_local_init(&L->tl, w->run->tl) < 0) return -1;
    if (L->run->t_end) L->tl_last = (size_t)((L->run->t_end - L->run->t_count - 1) / L->run->tl->interval_ns);
    L->has_budget = w->budget > 0;
    L->budget_left = w->budget;
    if (L->open && sched_init(L, w) < 0) return -1;
    return 0;
}

static void loop_free(loop_t *L)
{
    for (int i = 0; L->conns && i < L->n; i++) {
        transport_conn_free(L, &L->conns[i]);
        if (L->conns[i].fd >= 0) close(L->conns[i].fd);
    }
    if (L->conns) free(L->conns[0].slots);
    free(L->conns);
    free(L->rbuf);
    sched_free(L);
    tl_local_free(&L->tl);
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
        uint64_t backlog = L->open && !L->stopping && !stop ? sched_dispatch(L) : 0;
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
            uint64_t next = sched_intended(L, L->issued);
            uint64_t gap = next > L->now ? next - L->now : 0;
            if (gap < wait) wait = gap;
        }
        if (run->t_end && !L->stopping && run->t_end > L->now && run->t_end - L->now < wait) wait = run->t_end - L->now;
        if (L->stopping && L->drain_deadline - L->now < wait) wait = L->drain_deadline - L->now;

        int n = wait_events(L, evs, wait);
        L->now = now_ns();
        for (int i = 0; i < n; i++) conn_event(L, (conn_t *)evs[i].data.ptr, evs[i].events);
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
