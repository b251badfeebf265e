/* Presents merged results: one JSON document, or a short human summary. */
#ifndef ARENA_REPORT_H
#define ARENA_REPORT_H

#include "options.h"
#include "request.h"
#include "stats.h"
#include "timeline.h"
#include "url.h"

#include <stdio.h>

typedef struct {
    const options_t *o;
    const target_t *target;
    const request_set *rs; /* a mix's requests, by name (per-request figures) */
    int threads;
    double duration_s;
    const stats_t *st;
    const timeline_t *tl;
    double cpu_user_s, cpu_sys_s; /* the engine's own CPU time (getrusage) */
    long max_rss_kb;
} report_t;

void report_json(FILE *out, const report_t *r);
void report_human(FILE *out, const report_t *r);

#endif
