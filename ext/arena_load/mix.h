/* Request mix file: one request per line,
 *   weight[:name] method path expected_status [expected body substring]
 * Lines that share a name are one request of the mix (its sampled paths):
 * the engine reports latency per name, else per line.
 * Blank lines and lines starting with '#' are ignored. expected_status may be
 * '*' or 'any' (any status) or '2xx' (any 2xx/3xx, the default elsewhere). */
#ifndef ARENA_MIX_H
#define ARENA_MIX_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t weight;
    char *name;            /* NULL: none (the line is its own request) */
    char *method;
    char *path;
    int expect_status;     /* a code, EXPECT_ANY or EXPECT_2XX_3XX */
    char *expect_body;     /* NULL: none */
} mix_line;

typedef struct {
    mix_line *lines;
    size_t n;
} mix_t;

int mix_load(mix_t *m, const char *file, char *err, size_t errlen);
/* Parses one line (modified in place); returns 1 for a request, 0 for a
 * comment/blank line, -1 with err set. Exposed for tests. */
int mix_parse_line(char *line, mix_line *out, char *err, size_t errlen);
void mix_free(mix_t *m);

#endif
