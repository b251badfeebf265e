/* The run's timeline: one entry per interval (--timeline-ms, default 1000)
 * of the counted phase, shared by every thread.
 *
 * Memory is bounded: an entry is a fixed-size summary (counts, p50, p99).
 * Each thread counts the interval it is in locally (tl_local_t) and flushes
 * it when it moves on; the shared latency histogram of an interval lives in a
 * small ring only until every thread has flushed it, then its percentiles are
 * taken and the histogram is dropped. A thread lagging more than TL_RING
 * intervals behind the others still adds its counts; only its latencies miss
 * that interval's p50/p99. At most TL_MAX_ENTRIES entries: events after the
 * last one still count in the totals, not in the timeline.
 *
 * With keep_hists (--histograms) each finished entry also keeps its non-zero
 * buckets (sparse), so the histogram can be written out; that is the only
 * part that grows with the number of distinct latencies. */
#ifndef ARENA_TIMELINE_H
#define ARENA_TIMELINE_H

#include "histogram.h"
#include "stats.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define TL_RING 256
#define TL_MAX_ENTRIES 100000
#define TL_SUB_BITS 7 /* ~1% per-interval percentiles */

typedef struct {
    uint32_t n;           /* non-zero buckets */
    uint32_t *index;
    uint64_t *count;
    uint64_t total, min, max, sum;
    double sum_sq;
} tl_sparse_t;

typedef struct {
    uint64_t completed, good;
    uint64_t errors[ERR_KINDS];
    uint64_t p50_us, p99_us;
    tl_sparse_t *hist;    /* keep_hists only */
    int final;            /* percentiles taken, histogram dropped */
} tl_entry_t;

typedef struct {
    size_t idx;
    int used;
    int flushed;          /* threads that flushed this interval */
    hist_t lat;
} tl_pending_t;

typedef struct {
    pthread_mutex_t mu;
    uint64_t interval_ns;
    int nthreads;
    int keep_hists;
    tl_entry_t *entries;
    size_t n, cap;
    tl_pending_t ring[TL_RING];
} timeline_t;

/* One thread's current interval. */
typedef struct {
    timeline_t *tl;
    size_t idx;
    int dirty;
    uint64_t completed, good;
    uint64_t errors[ERR_KINDS];
    hist_t lat;
} tl_local_t;

int timeline_init(timeline_t *tl, uint64_t interval_ns, int nthreads, int keep_hists);
/* Takes the percentiles of every interval still pending (after the threads ended). */
void timeline_finish(timeline_t *tl);
void timeline_free(timeline_t *tl);
/* Fills h (initialised by the caller with TL_SUB_BITS) from a kept entry histogram. */
void timeline_entry_hist(const tl_entry_t *e, hist_t *h);

int tl_local_init(tl_local_t *l, timeline_t *tl);
void tl_local_free(tl_local_t *l);
/* Moves the thread to interval idx (flushing the one it leaves, and marking
 * the ones it skipped as flushed). Cheap when idx is the current one. */
void tl_local_at(tl_local_t *l, size_t idx);
/* Flushes the current interval and every one up to (not including) end. */
void tl_local_close(tl_local_t *l, size_t end);

static inline void tl_local_response(tl_local_t *l, uint64_t lat_us, int good)
{
    l->completed++;
    l->good += (uint64_t)good;
    hist_record(&l->lat, lat_us);
    l->dirty = 1;
}

static inline void tl_local_error(tl_local_t *l, int kind)
{
    l->errors[kind]++;
    l->dirty = 1;
}

#endif
