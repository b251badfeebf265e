/* The parser gives the same answer however the bytes are split. */
#include "check.h"
#include "replay.h"
#include "samples.h"

#include <stdint.h>

static body_expect make_expect(const char *s, uint32_t *fail)
{
    body_expect e;
    memset(&e, 0, sizeof e);
    if (s) body_expect_init(&e, s, strlen(s), fail);
    return e;
}

static void check_sample(const sample *s)
{
    size_t len = strlen(s->bytes);
    uint32_t fail[64];
    body_expect e = make_expect(s->expect, fail);
    replay_result whole, part;
    replay(s->bytes, len, NULL, 0, s->head_mask, &e, s->eof, &whole);

    CHECK(!whole.invariant_broken, "%s: invariant", s->name);
    CHECK(whole.error == s->error, "%s: error %d, expected %d", s->name, whole.error, s->error);
    CHECK(whole.n == s->n, "%s: %d responses, expected %d", s->name, whole.n, s->n);
    for (int i = 0; i < s->n && i < whole.n; i++) {
        CHECK(whole.status[i] == s->r[i].status, "%s #%d: status %d", s->name, i, whole.status[i]);
        CHECK(whole.body[i] == s->r[i].body, "%s #%d: body %llu", s->name, i, whole.body[i]);
        CHECK(whole.keep_alive[i] == s->r[i].keep_alive, "%s #%d: keep_alive %d", s->name, i, whole.keep_alive[i]);
        CHECK(whole.matched[i] == s->r[i].matched, "%s #%d: matched %d", s->name, i, whole.matched[i]);
    }

    /* Two pieces, cut at every possible byte. */
    int same = 1;
    for (size_t cut = 0; cut <= len; cut++) {
        replay(s->bytes, len, &cut, 1, s->head_mask, &e, s->eof, &part);
        if (!replay_equal(&whole, &part) || part.invariant_broken) {
            same = 0;
            printf("  %s differs when cut at %zu\n", s->name, cut);
        }
    }
    CHECK(same, "%s: split at every byte", s->name);

    /* Three pieces, every pair of cuts (samples are short). */
    same = 1;
    for (size_t a = 0; a <= len && same; a++)
        for (size_t b = a; b <= len; b++) {
            size_t cuts[2] = {a, b};
            replay(s->bytes, len, cuts, 2, s->head_mask, &e, s->eof, &part);
            if (!replay_equal(&whole, &part) || part.invariant_broken) {
                same = 0;
                printf("  %s differs when cut at %zu and %zu\n", s->name, a, b);
                break;
            }
        }
    CHECK(same, "%s: split at every pair of bytes", s->name);

    /* Byte by byte. */
    size_t *cuts = malloc((len + 1) * sizeof *cuts);
    for (size_t i = 0; i <= len; i++) cuts[i] = i;
    replay(s->bytes, len, cuts, len + 1, s->head_mask, &e, s->eof, &part);
    free(cuts);
    CHECK(replay_equal(&whole, &part) && !part.invariant_broken, "%s: byte by byte", s->name);
}

static void check_limits(void)
{
    /* An endless header section is an error, not a hang or a buffer. */
    http_parser p;
    http_parser_reset(&p, 0, NULL);
    const char *start = "HTTP/1.1 200 OK\r\n";
    http_parser_feed(&p, start, strlen(start));
    char line[100];
    memset(line, 'a', sizeof line);
    memcpy(line, "X-Long: ", 8);
    line[98] = '\r';
    line[99] = '\n';
    for (int i = 0; i < 2000 && p.state == HP_BUSY; i++) http_parser_feed(&p, line, sizeof line);
    CHECK(p.state == HP_ERROR, "endless headers end in an error");

    /* A huge chunk size is refused. */
    http_parser_reset(&p, 0, NULL);
    const char *big = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\n";
    http_parser_feed(&p, big, strlen(big));
    CHECK(p.state == HP_ERROR, "huge chunk size refused");

    /* Nothing is consumed after the end of a response. */
    http_parser_reset(&p, 0, NULL);
    const char *two = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1";
    size_t used = http_parser_feed(&p, two, strlen(two));
    CHECK(p.state == HP_DONE && used == strlen(two) - 8, "stops at the end of a response (used %zu)", used);
    CHECK(http_parser_feed(&p, two, strlen(two)) == 0, "a finished parser consumes nothing");
}

int main(void)
{
    for (size_t i = 0; i < NSAMPLES; i++) check_sample(&samples[i]);
    check_limits();
    return finish();
}
