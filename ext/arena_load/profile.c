#include "profile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int number(const char **s, char stop, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(*s, &end);
    if (errno || end == *s || !isfinite(v) || v < 0 || *end != stop) return -1;
    *out = v;
    *s = end + (stop ? 1 : 0);
    return 0;
}

int profile_parse(profile_t *p, const char *spec, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    const char *s = spec;
    while (*s) {
        if (p->n == PROFILE_MAX_STAGES) {
            snprintf(err, errlen, "bad profile: more than %d stages", PROFILE_MAX_STAGES);
            return -1;
        }
        stage_t *st = &p->st[p->n];
        const char *comma = strchr(s, ',');
        char stop = comma ? ',' : 0;
        if (number(&s, ':', &st->r0) < 0 || number(&s, ':', &st->r1) < 0 || number(&s, stop, &st->dur_s) < 0 ||
            st->r0 > 1e8 || st->r1 > 1e8 || st->dur_s <= 0 || st->dur_s > 1e6) {
            snprintf(err, errlen, "bad profile '%s': stages 'R0:R1:SEC' separated by commas (rates 0 to 1e8/s, SEC > 0)",
                     spec);
            return -1;
        }
        p->t0[p->n] = p->total_s;
        p->n0[p->n] = p->total_n;
        p->total_s += st->dur_s;
        p->total_n += (st->r0 + st->r1) / 2 * st->dur_s;
        p->n++;
        if (!comma) break;
        if (!*s) {
            snprintf(err, errlen, "bad profile '%s': a stage after the last comma", spec);
            return -1;
        }
    }
    if (p->n == 0 || p->total_n < 1) {
        snprintf(err, errlen, "bad profile '%s': it asks for no request", spec);
        return -1;
    }
    return 0;
}

int profile_stage_at(const profile_t *p, double t)
{
    if (t < 0 || t >= p->total_s) return -1;
    for (int i = p->n - 1; i >= 0; i--)
        if (t >= p->t0[i]) return i;
    return -1;
}

double profile_count(const profile_t *p, double t, double scale)
{
    if (t <= 0) return 0;
    if (t >= p->total_s) return p->total_n * scale;
    int i = profile_stage_at(p, t);
    const stage_t *st = &p->st[i];
    double dt = t - p->t0[i];
    double slope = (st->r1 - st->r0) / st->dur_s;
    return (p->n0[i] + st->r0 * dt + slope * dt * dt / 2) * scale;
}

double profile_time(const profile_t *p, double x, double scale)
{
    x /= scale;
    if (x < 0 || x >= p->total_n) return -1;
    int i = p->n - 1;
    while (i > 0 && p->n0[i] > x) i--;
    /* Stages that ask for nothing (a hold at 0) are passed over. */
    while (i + 1 < p->n && p->n0[i + 1] <= x) i++;
    const stage_t *st = &p->st[i];
    double a = st->r0, b = (st->r1 - st->r0) / st->dur_s, y = x - p->n0[i];
    /* b/2 dt^2 + a dt = y, in the form that stays exact for b near 0 or < 0. */
    double root = sqrt(a * a + 2 * b * y);
    double dt = y > 0 ? 2 * y / (a + root) : 0;
    if (dt > st->dur_s) dt = st->dur_s;
    return p->t0[i] + dt;
}
