/* The event loop's set-up and tear-down, with allocation failures injected
 * (the link wraps calloc: see the Makefile). worker.c is included so that its
 * static functions can be called. */
#include "../worker.c"
#include "check.h"

#include <fcntl.h>

static int fail_calloc_of; /* element size whose calloc fails, 0: none */

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size)
{
    if (fail_calloc_of && size == (size_t)fail_calloc_of) return NULL;
    return __real_calloc(n, size);
}

/* A failed set-up must close only what it opened: descriptor 0 (stdin, or
 * whatever the process holds there) is not the loop's to close. */
static void check_failed_init_keeps_fd0(void)
{
    int pipefd[2];
    CHECK(pipe(pipefd) == 0, "pipe");
    int saved = dup(0);
    dup2(pipefd[0], 0);

    options_t o;
    memset(&o, 0, sizeof o);
    o.pipeline = 2;
    o.threads = 1;
    o.keep_alive = 1;
    timeline_t tl;
    timeline_init(&tl, 1000000000ull, 1, 0);
    run_t run;
    memset(&run, 0, sizeof run);
    request_set rs;
    memset(&rs, 0, sizeof rs);
    run.o = &o;
    run.tl = &tl;
    run.reqs = &rs;
    worker_t w;
    memset(&w, 0, sizeof w);
    w.run = &run;
    w.nconns = 8;

    fail_calloc_of = sizeof(slot_t); /* the connections exist, their slots do not */
    loop_t L;
    CHECK(loop_init(&L, &w) < 0, "set-up fails when an allocation fails");
    loop_free(&L);
    fail_calloc_of = 0;
    CHECK(fcntl(0, F_GETFD) != -1, "descriptor 0 is still open after a failed set-up");

    /* And a set-up that succeeds tears down cleanly. */
    CHECK(loop_init(&L, &w) == 0, "set-up succeeds");
    loop_free(&L);
    CHECK(fcntl(0, F_GETFD) != -1, "descriptor 0 is still open after a normal tear-down");

    timeline_free(&tl);
    dup2(saved, 0);
    close(saved);
    close(pipefd[0]);
    close(pipefd[1]);
}

/* A fractional rate (-R 0.2: one request every 5 s) is a schedule, not a
 * rounding: over a run, the threads together schedule rate x duration
 * requests, spread evenly, never two at once and never none. */
static uint64_t scheduled(double rate, int threads, double seconds, uint64_t *first_gap_ns)
{
    options_t o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    o.pipeline = 1;
    run_t run;
    memset(&run, 0, sizeof run);
    run.o = &o;
    run.t0 = 1000000000ull;
    run.t_count = run.t0;
    run.t_end = run.t0 + (uint64_t)(seconds * 1e9);
    uint64_t total = 0;
    uint64_t starts[16];
    for (int i = 0; i < threads; i++) {
        worker_t w;
        memset(&w, 0, sizeof w);
        w.id = i;
        w.rate = rate / threads;
        loop_t L;
        memset(&L, 0, sizeof L);
        L.o = &o;
        L.run = &run;
        L.n = 1;
        L.depth = 1;
        CHECK(sched_init(&L, &w) == 0, "schedule set-up");
        total += L.max_issue;
        starts[i] = L.sched_start;
        sched_free(&L);
    }
    if (first_gap_ns) *first_gap_ns = threads > 1 ? starts[1] - starts[0] : 0;
    return total;
}

static void check_fractional_rates(void)
{
    uint64_t gap = 0;
    CHECK(scheduled(0.2, 1, 20, NULL) == 4, "-R 0.2 for 20 s: 4 requests");
    CHECK(scheduled(0.2, 2, 20, &gap) == 4, "-R 0.2 over 2 threads for 20 s: still 4");
    CHECK(gap == 5000000000ull, "the threads interleave: together one request every 5 s");
    CHECK(scheduled(0.5, 1, 7, NULL) == 4, "-R 0.5 for 7 s: at 0, 2, 4, 6 s");
    CHECK(scheduled(1.25, 1, 8, NULL) == 10, "-R 1.25 for 8 s: 10");
    CHECK(scheduled(0.1, 1, 5, NULL) == 1, "-R 0.1 for 5 s: the one at the start");
    /* Two levels a rounding would have made one (0.2 and 0.5 were both 1). */
    CHECK(scheduled(0.2, 1, 60, NULL) != scheduled(0.5, 1, 60, NULL), "0.2 and 0.5 req/s are different schedules");
}

int main(void)
{
    check_failed_init_keeps_fd0();
    check_fractional_rates();
    return finish();
}
