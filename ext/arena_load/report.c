#include "report.h"

#include "hcodec.h"

#include <math.h>

#define SCHEMA "arena-load/2"

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

static uint64_t error_total(const uint64_t *errors)
{
    uint64_t t = 0;
    for (int k = 0; k < ERR_KINDS; k++) t += errors[k];
    return t;
}

/* Every interval of the duration, even those in which nothing happened. */
static size_t timeline_length(const report_t *r)
{
    size_t n = r->tl->n;
    size_t d = (size_t)ceil(r->duration_s * 1000.0 / (double)r->o->timeline_ms - 1e-9);
    if (d > TL_MAX_ENTRIES) d = TL_MAX_ENTRIES;
    return n > d ? n : d;
}

/* A mix's requests apart: "requests_mix":[{name, weight_share, completed,
 * good, bad, latency_us of the good}], or null for a single request. Bad
 * responses are those with an unexpected status or body; a connection's
 * errors stay the mix's (the request in flight is not always known). */
static void per_request_json(FILE *out, const report_t *r)
{
    const stats_t *st = r->st;
    if (!r->rs || !st->nreq || st->nreq != r->rs->ngroups) {
        fputs(",\"requests_mix\":null", out);
        return;
    }
    fputs(",\"requests_mix\":[", out);
    for (size_t g = 0; g < st->nreq; g++) {
        const req_stats_t *rq = &st->req[g];
        fputs(g ? ",{\"name\":" : "{\"name\":", out);
        json_string(out, r->rs->group_names[g]);
        fprintf(out, ",\"weight_share\":%.6f,\"completed\":%llu,\"good\":%llu,\"bad\":%llu,\"latency_us\":",
                r->rs->total_weight ? (double)r->rs->group_weight[g] / (double)r->rs->total_weight : 0,
                (unsigned long long)rq->completed, (unsigned long long)rq->good,
                (unsigned long long)(rq->completed - rq->good));
        hist_write_latency_json(out, &rq->good_lat);
        if (r->o->histograms) {
            /* So several loaders' requests merge exactly (Remote::Merge). */
            fputs(",\"latency_histogram\":", out);
            hcodec_write_json(out, &rq->good_lat);
        }
        fputc('}', out);
    }
    fputc(']', out);
}

/* A profile's stages: "stages":[{from_rps, to_rps, start_s, duration_s,
 * asked, sent, completed, good, errors, dropped, latency_us of the good}],
 * by the intended time of the requests; null without --profile. */
static void stages_json(FILE *out, const report_t *r)
{
    const stats_t *st = r->st;
    const profile_t *p = &r->o->profile;
    if (!p->n || (int)st->nstage != p->n) {
        fputs(",\"stages\":null", out);
        return;
    }
    fputs(",\"stages\":[", out);
    for (int i = 0; i < p->n; i++) {
        const stage_stats_t *s = &st->stage[i];
        const stage_t *g = &p->st[i];
        fprintf(out,
                "%s{\"from_rps\":%.15g,\"to_rps\":%.15g,\"start_s\":%.15g,\"duration_s\":%.15g,\"asked\":%.1f,"
                "\"sent\":%llu,\"completed\":%llu,\"good\":%llu,\"errors\":%llu,\"dropped\":%llu,\"latency_us\":",
                i ? "," : "", g->r0, g->r1, p->t0[i], g->dur_s, (g->r0 + g->r1) / 2 * g->dur_s,
                (unsigned long long)s->sent, (unsigned long long)s->completed, (unsigned long long)s->good,
                (unsigned long long)s->errors, (unsigned long long)s->dropped);
        hist_write_latency_json(out, &s->good_lat);
        if (r->o->histograms) {
            fputs(",\"latency_histogram\":", out);
            hcodec_write_json(out, &s->good_lat);
        }
        fputc('}', out);
    }
    fputc(']', out);
}

void report_json(FILE *out, const report_t *r)
{
    const stats_t *st = r->st;
    const options_t *o = r->o;
    double rps = r->duration_s > 0 ? (double)st->completed / r->duration_s : 0;

    fprintf(out, "{\"schema\":\"%s\",\"engine_version\":\"%s\",\"target\":", SCHEMA, ARENA_VERSION);
    json_string(out, r->target->text);
    fprintf(out, ",\"model\":\"%s\",\"threads\":%d", o->rate > 0 ? "open" : "closed", r->threads);
    fprintf(out, ",\"connections\":{\"requested\":%d,\"opened\":%llu,\"resent\":%llu}", o->connections,
            (unsigned long long)st->opened, (unsigned long long)st->resent);
    fprintf(out, ",\"pipeline\":%d,\"keep_alive\":%s", o->pipeline, o->keep_alive ? "true" : "false");
    fprintf(out, ",\"warmup_s\":%.3f,\"duration_s\":%.6f", o->warmup_s, r->duration_s);
    fprintf(out, ",\"requests\":{\"sent\":%llu,\"completed\":%llu,\"warmup_sent\":%llu}", (unsigned long long)st->sent,
            (unsigned long long)st->completed, (unsigned long long)st->warmup_sent);
    fprintf(out, ",\"throughput_rps\":%.2f,\"bytes_received\":%llu", rps, (unsigned long long)st->bytes);

    fputs(",\"status\":{", out);
    int first = 1;
    for (int i = 0; i < 1000; i++) {
        if (!st->status[i]) continue;
        fprintf(out, "%s\"%d\":%llu", first ? "" : ",", i, (unsigned long long)st->status[i]);
        first = 0;
    }
    fputs("},\"errors\":{", out);
    for (int k = 0; k < ERR_KINDS; k++)
        fprintf(out, "\"%s\":%llu,", error_names[k], (unsigned long long)st->errors[k]);
    fprintf(out, "\"total\":%llu}", (unsigned long long)error_total(st->errors));

    const hist_t *h = &st->lat;
    fputs(",\"latency_us\":", out);
    hist_write_latency_json(out, h);
    if (o->histograms) {
        fputs(",\"latency_histogram\":", out);
        hcodec_write_json(out, h);
    }

    if (o->rate > 0)
        fprintf(out, ",\"open\":{\"target_rps\":%.6g,\"late\":%llu,\"dropped\":%llu}", o->rate,
                (unsigned long long)st->late, (unsigned long long)st->dropped);
    else
        fputs(",\"open\":null", out);

    /* Goodput: responses with the expected status and body. */
    fprintf(out, ",\"good\":{\"completed\":%llu,\"rps\":%.2f,\"latency_us\":", (unsigned long long)st->good,
            r->duration_s > 0 ? (double)st->good / r->duration_s : 0);
    hist_write_latency_json(out, &st->good_lat);
    if (o->histograms) {
        /* So several loaders' good latency merges exactly (Remote::Merge). */
        fputs(",\"latency_histogram\":", out);
        hcodec_write_json(out, &st->good_lat);
    }
    fputc('}', out);
    per_request_json(out, r);
    stages_json(out, r);
    fprintf(out, ",\"engine\":{\"cpu_user_s\":%.3f,\"cpu_sys_s\":%.3f,\"max_rss_kb\":%ld}", r->cpu_user_s,
            r->cpu_sys_s, r->max_rss_kb);

    /* What the figures were measured over, and what connecting cost. */
    fputs(",\"transport\":{\"protocol\":", out);
    json_string(out, st->protocol);
    fputs(",\"tls\":", out);
    if (r->target->tls) json_string(out, st->tls_version);
    else fputs("null", out);
    fprintf(out, ",\"h2_streams\":%d,\"tls_resume\":%s,\"tls_handshakes\":{\"full\":%llu,\"resumed\":%llu}",
            o->http2 ? o->h2_streams : 0, o->tls_resume ? "true" : "false", (unsigned long long)st->tls_full,
            (unsigned long long)st->tls_resumed);
    fputs(",\"handshake_us\":", out);
    hist_write_latency_json(out, &st->handshake);
    fputc('}', out);

    fprintf(out, ",\"timeline_ms\":%llu,\"timeline\":[", (unsigned long long)o->timeline_ms);
    size_t n = timeline_length(r);
    hist_t scratch = {0};
    if (o->histograms) hist_init(&scratch, TL_SUB_BITS, LAT_HIGHEST_US);
    for (size_t i = 0; i < n; i++) {
        const tl_entry_t *s = i < r->tl->n ? &r->tl->entries[i] : NULL;
        uint64_t completed = s ? s->completed : 0;
        uint64_t errors = s ? error_total(s->errors) : 0;
        fprintf(out,
                "%s{\"t\":%.15g,\"start_ms\":%llu,\"completed\":%llu,\"good\":%llu,\"errors\":%llu,\"p50_us\":%llu,"
                "\"p99_us\":%llu,\"error_kinds\":{",
                i ? "," : "", (double)(i * o->timeline_ms) / 1000.0, (unsigned long long)(i * o->timeline_ms), (unsigned long long)completed,
                (unsigned long long)(s ? s->good : 0), (unsigned long long)errors,
                (unsigned long long)(s ? s->p50_us : 0), (unsigned long long)(s ? s->p99_us : 0));
        int f = 1;
        for (int k = 0; s && k < ERR_KINDS; k++) {
            if (!s->errors[k]) continue;
            fprintf(out, "%s\"%s\":%llu", f ? "" : ",", error_names[k], (unsigned long long)s->errors[k]);
            f = 0;
        }
        fputc('}', out);
        if (o->histograms) {
            fputs(",\"histogram\":", out);
            if (s && s->hist && scratch.counts) {
                timeline_entry_hist(s, &scratch);
                hcodec_write_json(out, &scratch);
            } else {
                fputs("null", out);
            }
        }
        fputc('}', out);
    }
    hist_free(&scratch);
    fputs("]}\n", out);
}

static void human_us(char *buf, size_t len, double us)
{
    if (us < 1000) snprintf(buf, len, "%.0fus", us);
    else if (us < 1e6) snprintf(buf, len, "%.2fms", us / 1000);
    else snprintf(buf, len, "%.2fs", us / 1e6);
}

void report_human(FILE *out, const report_t *r)
{
    const stats_t *st = r->st;
    const options_t *o = r->o;
    const hist_t *h = &st->lat;
    double rps = r->duration_s > 0 ? (double)st->completed / r->duration_s : 0;
    char a[32], b[32], c[32], d[32], e[32], f[32], g[32];

    fprintf(out, "arena-load %s: %.2fs %s-model run @ %s\n", ARENA_VERSION, r->duration_s,
            o->rate > 0 ? "open" : "closed", r->target->text);
    fprintf(out, "  %d threads, %d connections (%llu opened)%s", r->threads, o->connections,
            (unsigned long long)st->opened, o->keep_alive ? "" : ", no keep-alive");
    if (o->pipeline > 1) fprintf(out, ", pipeline %d", o->pipeline);
    if (o->rate > 0) fprintf(out, ", target %g req/s", o->rate);
    fputc('\n', out);
    human_us(a, sizeof a, hist_mean(h));
    human_us(b, sizeof b, hist_stdev(h));
    human_us(c, sizeof c, (double)h->max);
    fprintf(out, "  Latency   mean %s  stdev %s  max %s\n", a, b, c);
    human_us(a, sizeof a, (double)hist_percentile(h, 50));
    human_us(b, sizeof b, (double)hist_percentile(h, 75));
    human_us(c, sizeof c, (double)hist_percentile(h, 90));
    human_us(d, sizeof d, (double)hist_percentile(h, 99));
    human_us(e, sizeof e, (double)hist_percentile(h, 99.9));
    human_us(f, sizeof f, (double)hist_percentile(h, 99.99));
    human_us(g, sizeof g, (double)(h->total ? h->min : 0));
    fprintf(out, "            min %s  p50 %s  p75 %s  p90 %s  p99 %s  p99.9 %s  p99.99 %s\n", g, a, b, c, d, e, f);
    fprintf(out, "  %llu requests sent, %llu completed, %.2f MB read\n", (unsigned long long)st->sent,
            (unsigned long long)st->completed, (double)st->bytes / 1e6);
    fputs("  Status   ", out);
    for (int i = 0; i < 1000; i++)
        if (st->status[i]) fprintf(out, " %d: %llu", i, (unsigned long long)st->status[i]);
    fputc('\n', out);
    uint64_t total = error_total(st->errors);
    if (total) {
        fprintf(out, "  Errors    %llu:", (unsigned long long)total);
        for (int k = 0; k < ERR_KINDS; k++)
            if (st->errors[k]) fprintf(out, " %s %llu", error_names[k], (unsigned long long)st->errors[k]);
        fputc('\n', out);
    }
    if (r->target->tls || o->http2) {
        human_us(a, sizeof a, (double)hist_percentile(&st->handshake, 50));
        human_us(b, sizeof b, (double)hist_percentile(&st->handshake, 99));
        fprintf(out, "  Transport %s%s%s, handshake p50 %s p99 %s", st->protocol[0] ? st->protocol : "(none)",
                r->target->tls ? " over " : "", r->target->tls ? st->tls_version : "", a, b);
        if (r->target->tls)
            fprintf(out, ", %llu full, %llu resumed", (unsigned long long)st->tls_full,
                    (unsigned long long)st->tls_resumed);
        fputc('\n', out);
    }
    if (o->rate > 0)
        fprintf(out, "  Open      late %llu, dropped %llu\n", (unsigned long long)st->late,
                (unsigned long long)st->dropped);
    fprintf(out, "Requests/sec: %.2f\n", rps);
    fprintf(out, "Good/sec:     %.2f (%llu good responses: expected status and body)\n",
            r->duration_s > 0 ? (double)st->good / r->duration_s : 0, (unsigned long long)st->good);
    fprintf(out, "Transfer/sec: %.2f MB\n", r->duration_s > 0 ? (double)st->bytes / 1e6 / r->duration_s : 0);
}
