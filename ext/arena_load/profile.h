/* A load profile (--profile): open-model stages in order, each a rate that
 * goes linearly from r0 to r1 requests/s over its duration (a hold has
 * r0 == r1). The schedule of intended times follows it: request k of a
 * thread is intended when the thread's share of the cumulative count
 * reaches k + phase, so coordinated omission stays corrected as with -R. */
#ifndef ARENA_PROFILE_H
#define ARENA_PROFILE_H

#include <stddef.h>

#define PROFILE_MAX_STAGES 32

typedef struct {
    double r0, r1, dur_s;
} stage_t;

typedef struct {
    stage_t st[PROFILE_MAX_STAGES];
    double t0[PROFILE_MAX_STAGES];  /* start of each stage, seconds */
    double n0[PROFILE_MAX_STAGES];  /* requests asked before each stage (full rate) */
    int n;                          /* 0: no profile */
    double total_s, total_n;
} profile_t;

/* "R0:R1:SEC,R0:R1:SEC,..." (Arena writes it from its own syntax); 0 or -1
 * with err set. */
int profile_parse(profile_t *p, const char *spec, char *err, size_t errlen);
/* Requests asked in the first t seconds, times scale (a thread's share). */
double profile_count(const profile_t *p, double t, double scale);
/* When the count reaches x (times scale): seconds from the start; a
 * negative value when it never does. */
double profile_time(const profile_t *p, double x, double scale);
/* The stage at t seconds, or -1 outside the profile. */
int profile_stage_at(const profile_t *p, double t);

#endif
