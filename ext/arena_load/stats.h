/* What one thread measured; merged across threads at the end. */
#ifndef ARENA_STATS_H
#define ARENA_STATS_H

#include "histogram.h"

#include <stddef.h>
#include <stdint.h>

enum {
    ERR_CONNECT_REFUSED,
    ERR_CONNECT_TIMEOUT,
    ERR_RESET,
    ERR_CLOSED_BEFORE_RESPONSE,
    ERR_TIMEOUT,
    ERR_PARSE,
    ERR_UNEXPECTED_STATUS,
    ERR_BODY_MISMATCH,
    ERR_KINDS
};

extern const char *const error_names[ERR_KINDS];

/* Latency histograms: main one ~3 significant digits, per-second ones ~2. */
#define LAT_SUB_BITS 11
#define SECOND_SUB_BITS 7
#define LAT_HIGHEST_US 100000000ULL /* 100 s */
#define MAX_SECONDS 86400

typedef struct {
    uint64_t completed;
    uint64_t errors[ERR_KINDS];
    hist_t lat;             /* allocated on the first completion of the second */
} second_t;

typedef struct {
    uint64_t sent, completed, bytes, opened, late, dropped;
    uint64_t resent; /* requests sent again after the server closed between responses */
    uint64_t errors[ERR_KINDS];
    uint64_t status[1000];
    hist_t lat;
    second_t *seconds;      /* grown by doubling, one per second */
    size_t nseconds, cap;
} stats_t;

int stats_init(stats_t *s);
void stats_free(stats_t *s);
/* The timeline slot for second idx (NULL past MAX_SECONDS or out of memory). */
second_t *stats_second(stats_t *s, size_t idx);
void stats_second_record(second_t *sec, uint64_t lat_us);
int stats_merge(stats_t *dst, const stats_t *src);

#endif
