#include "timeline.h"

#include <stdlib.h>
#include <string.h>

int timeline_init(timeline_t *tl, uint64_t interval_ns, int nthreads, int keep_hists)
{
    memset(tl, 0, sizeof *tl);
    if (pthread_mutex_init(&tl->mu, NULL) != 0) return -1;
    tl->interval_ns = interval_ns;
    tl->nthreads = nthreads;
    tl->keep_hists = keep_hists;
    return 0;
}

static void sparse_free(tl_sparse_t *s)
{
    if (!s) return;
    free(s->index);
    free(s->count);
    free(s);
}

void timeline_free(timeline_t *tl)
{
    for (size_t i = 0; i < tl->n; i++) sparse_free(tl->entries[i].hist);
    free(tl->entries);
    for (int i = 0; i < TL_RING; i++) hist_free(&tl->ring[i].lat);
    pthread_mutex_destroy(&tl->mu);
    memset(tl, 0, sizeof *tl);
}

static tl_sparse_t *sparse_of(const hist_t *h)
{
    tl_sparse_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    for (size_t i = 0; i < h->ncounts; i++) s->n += h->counts[i] != 0;
    s->index = malloc((s->n ? s->n : 1) * sizeof *s->index);
    s->count = malloc((s->n ? s->n : 1) * sizeof *s->count);
    if (!s->index || !s->count) {
        sparse_free(s);
        return NULL;
    }
    uint32_t k = 0;
    for (size_t i = 0; i < h->ncounts; i++) {
        if (!h->counts[i]) continue;
        s->index[k] = (uint32_t)i;
        s->count[k++] = h->counts[i];
    }
    s->total = h->total;
    s->min = h->min;
    s->max = h->max;
    s->sum = h->sum;
    s->sum_sq = h->sum_sq;
    return s;
}

void timeline_entry_hist(const tl_entry_t *e, hist_t *h)
{
    hist_clear(h);
    const tl_sparse_t *s = e->hist;
    if (!s) return;
    for (uint32_t k = 0; k < s->n; k++) h->counts[s->index[k]] = s->count[k];
    h->total = s->total;
    h->min = s->min;
    h->max = s->max;
    h->sum = s->sum;
    h->sum_sq = s->sum_sq;
}

/* Entry idx exists (zeroed); 0 when past the cap or out of memory. */
static tl_entry_t *entry(timeline_t *tl, size_t idx)
{
    if (idx >= TL_MAX_ENTRIES) return NULL;
    if (idx >= tl->cap) {
        size_t cap = tl->cap ? tl->cap : 64;
        while (cap <= idx) cap *= 2;
        if (cap > TL_MAX_ENTRIES) cap = TL_MAX_ENTRIES;
        tl_entry_t *n = realloc(tl->entries, cap * sizeof *n);
        if (!n) return NULL;
        memset(n + tl->cap, 0, (cap - tl->cap) * sizeof *n);
        tl->entries = n;
        tl->cap = cap;
    }
    if (idx >= tl->n) tl->n = idx + 1;
    return &tl->entries[idx];
}

/* The interval's histogram is complete (or its ring slot is needed): keep
 * only its percentiles. */
static void finalize(timeline_t *tl, tl_pending_t *p)
{
    tl_entry_t *e = &tl->entries[p->idx];
    if (p->lat.counts && p->lat.total) {
        e->p50_us = hist_percentile(&p->lat, 50);
        e->p99_us = hist_percentile(&p->lat, 99);
        if (tl->keep_hists) e->hist = sparse_of(&p->lat);
    }
    /* Later flushes (a lagging thread) add counts only. */
    e->final = 1;
    p->used = 0;
}

/* Under the lock: thread-local figures of interval idx join the shared ones. */
static void flush_one(timeline_t *tl, size_t idx, const tl_local_t *l)
{
    tl_entry_t *e = entry(tl, idx);
    if (!e) return;
    if (l) {
        e->completed += l->completed;
        e->good += l->good;
        for (int k = 0; k < ERR_KINDS; k++) e->errors[k] += l->errors[k];
    }
    if (e->final) return;
    tl_pending_t *p = &tl->ring[idx % TL_RING];
    if (p->used && p->idx != idx) {
        if (p->idx > idx) return; /* cannot happen: e would be final */
        finalize(tl, p);          /* an older interval whose laggard never came */
    }
    if (!p->used) {
        if (!p->lat.counts && hist_init(&p->lat, TL_SUB_BITS, LAT_HIGHEST_US) < 0) return;
        hist_clear(&p->lat);
        p->used = 1;
        p->idx = idx;
        p->flushed = 0;
    }
    if (l && l->lat.total) hist_merge(&p->lat, &l->lat);
    if (++p->flushed >= tl->nthreads) finalize(tl, p);
}

int tl_local_init(tl_local_t *l, timeline_t *tl)
{
    memset(l, 0, sizeof *l);
    l->tl = tl;
    return hist_init(&l->lat, TL_SUB_BITS, LAT_HIGHEST_US);
}

void tl_local_free(tl_local_t *l)
{
    hist_free(&l->lat);
}

static void reset_local(tl_local_t *l)
{
    l->completed = l->good = 0;
    memset(l->errors, 0, sizeof l->errors);
    if (l->lat.total) hist_clear(&l->lat);
    l->dirty = 0;
}

void tl_local_close(tl_local_t *l, size_t end)
{
    timeline_t *tl = l->tl;
    pthread_mutex_lock(&tl->mu);
    flush_one(tl, l->idx, l);
    for (size_t k = l->idx + 1; k < end && k < TL_MAX_ENTRIES; k++) flush_one(tl, k, NULL);
    pthread_mutex_unlock(&tl->mu);
    reset_local(l);
    l->idx = end;
}

void tl_local_at(tl_local_t *l, size_t idx)
{
    if (idx <= l->idx) return;
    tl_local_close(l, idx);
}

void timeline_finish(timeline_t *tl)
{
    for (int i = 0; i < TL_RING; i++)
        if (tl->ring[i].used) finalize(tl, &tl->ring[i]);
}
