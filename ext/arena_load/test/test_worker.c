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

int main(void)
{
    check_failed_init_keeps_fd0();
    return finish();
}
