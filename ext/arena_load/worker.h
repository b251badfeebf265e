/* One load thread: its own epoll loop over its share of the connections.
 *
 * Protocol with main: main fills `run_t` (times are CLOCK_MONOTONIC ns) and
 * starts the workers; a worker stops sending when the counted phase ends, its
 * request budget is spent or `stop` becomes 1, then waits up to the response
 * timeout for requests in flight (`stop` 2: at once; a closed-model run that
 * ends at its deadline or a signal does not wait: nothing after it counts),
 * records `finish_ns` and sets `done`. Only then does main read its stats.
 * Each worker adds its figures per interval to the shared timeline `tl`. */
#ifndef ARENA_WORKER_H
#define ARENA_WORKER_H

#include "options.h"
#include "request.h"
#include "stats.h"
#include "timeline.h"
#include "transport.h"
#include "url.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct {
    const options_t *o;
    const target_t *target;
    const request_set *reqs;
    const transport_t *tp; /* plain, TLS; HTTP/1.1 or HTTP/2: one for every connection */
    uint64_t t0;          /* start of the run (warm-up included) */
    uint64_t t_count;     /* start of the counted phase */
    uint64_t t_end;       /* end of the counted phase, 0: no duration */
    uint64_t timeout_ns, connect_timeout_ns;
    timeline_t *tl;
    atomic_int stop;
    _Atomic uint64_t stop_ns; /* when main took the first SIGINT/SIGTERM (0: none) */
    atomic_int running;   /* workers not yet done */
} run_t;

typedef struct {
    int id;
    run_t *run;
    int nconns;
    uint64_t budget;      /* -n share, 0: none */
    double rate;          /* -R share, 0: closed model */
    int cpu;              /* -1: not pinned */
    pthread_t thread;
    stats_t stats;
    uint64_t finish_ns;   /* end of the counted phase as this thread saw it */
    char error[200];      /* set when the thread could not run */
} worker_t;

void *worker_main(void *arg);

#endif
