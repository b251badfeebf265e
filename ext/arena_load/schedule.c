/* The open model: the schedule of intended times, the dispatch of due
 * requests to connections (idle ones first, by requests in flight), and the
 * requests that never went out.
 *
 * It drives conn.c (conn_connect, push_request, then conn_flush through the
 * protocol's table) and conn.c calls nothing here: the dependency goes one
 * way, from the schedule to the connections. */
#include "loop.h"

#include <stdlib.h>

/* The usable connections by requests in flight (L->lv_head) are kept by
 * conn.c as connections change (conn_level_update); the dispatcher below
 * only reads them. */

/* ---- open model schedule ---- */

/* Beyond a profile's last request: a time no run reaches. */
#define NEVER (UINT64_MAX / 2)

uint64_t sched_intended(const loop_t *L, uint64_t k)
{
    if (L->profile) {
        double t = profile_time(L->profile, (double)k + L->phase, L->share);
        return t < 0 ? NEVER : L->sched_start + (uint64_t)(t * 1e9);
    }
    return L->sched_start + (uint64_t)((double)k * L->interval);
}

/* Requests whose intended time has come (bounded by -n and the duration). */
static uint64_t due_count(const loop_t *L, uint64_t now)
{
    if (now < L->sched_start) return 0;
    uint64_t due;
    if (L->profile) {
        double x = profile_count(L->profile, (double)(now - L->sched_start) / 1e9, L->share) - L->phase;
        due = x < 0 ? 0 : (uint64_t)x + 1;
        /* Rounding at a stage's edge: never ahead of the schedule itself. */
        while (due > 0 && sched_intended(L, due - 1) > now) due--;
    } else {
        due = (uint64_t)((double)(now - L->sched_start) / L->interval) + 1;
    }
    return due < L->max_issue ? due : L->max_issue;
}

/* Sends the due requests (and those to send again). A request goes to an idle
 * connection; when there is none, closed connections are opened (as many as
 * requests wait) and waited for; it queues behind a busy connection (-p > 1,
 * the least loaded) only when no connection can be opened: the client's own
 * queueing must not land in the latency. Returns how many requests are still
 * waiting (the backlog). */
uint64_t sched_dispatch(loop_t *L)
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
            t = sched_intended(L, L->issued++);
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
void sched_count_dropped(loop_t *L)
{
    uint64_t due = due_count(L, L->stop_at);
    uint64_t end = L->stop_at;
    for (uint64_t k = L->issued; k < due; k++) {
        uint64_t t = sched_intended(L, k);
        if (!counted(L, t)) continue;
        L->st->dropped++;
        stage_stats_t *sg = stage_of(L, t);
        if (sg) sg->dropped++;
        hist_record(&L->st->lat, end > t ? (end - t) / 1000 : 0);
    }
    for (uint32_t i = 0; i < L->nretry; i++) {
        uint64_t t = L->retry[i];
        if (!counted(L, t)) continue;
        L->st->dropped++;
        stage_stats_t *sg = stage_of(L, t);
        if (sg) sg->dropped++;
        hist_record(&L->st->lat, end > t ? (end - t) / 1000 : 0);
    }
    L->issued = due;
    L->nretry = 0;
}

int sched_init(loop_t *L, const worker_t *w)
{
    L->interval = 1e9 / w->rate;
    int nthreads = L->o->threads;
    L->sched_start = L->run->t0 + (uint64_t)(L->interval * w->id / nthreads);
    if (L->o->profile.n) {
        /* Threads take turns through one profile: thread i sends requests
         * i, i + T, i + 2T, ... of the whole schedule. */
        L->profile = &L->o->profile;
        L->share = 1.0 / nthreads;
        L->phase = (double)w->id / nthreads;
        L->sched_start = L->run->t0;
    }
    L->max_issue = UINT64_MAX;
    if (L->run->t_end) {
        /* Only requests intended before the end are scheduled. */
        uint64_t span = L->run->t_end > L->sched_start ? L->run->t_end - L->sched_start : 0;
        uint64_t k = (uint64_t)((double)span / L->interval);
        if (L->profile) {
            double x = profile_count(L->profile, (double)span / 1e9, L->share) - L->phase;
            k = x > 0 ? (uint64_t)x : 0;
        }
        while (k > 0 && sched_intended(L, k - 1) >= L->run->t_end) k--;
        while (sched_intended(L, k) < L->run->t_end) k++;
        L->max_issue = k;
    }
    if (w->budget) {
        uint64_t k0 = 0;
        while (sched_intended(L, k0) < L->run->t_count) k0++;
        if (k0 + w->budget < L->max_issue) L->max_issue = k0 + w->budget;
    }
    L->retry_cap = L->n * L->depth;
    L->retry = calloc(L->retry_cap, sizeof *L->retry);
    L->lv_head = malloc(L->depth * sizeof *L->lv_head);
    L->down_cap = (uint32_t)L->n * 2 + 1;
    L->down_stack = calloc(L->down_cap, sizeof *L->down_stack);
    if (!L->retry || !L->lv_head || !L->down_stack) return -1;
    for (uint32_t i = 0; i < L->depth; i++) L->lv_head[i] = -1;
    return 0;
}

void sched_free(loop_t *L)
{
    free(L->retry);
    free(L->lv_head);
    free(L->down_stack);
}
