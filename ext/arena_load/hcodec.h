/* The engine's side of distributed runs: a compact, lossless text encoding of
 * a latency histogram (so several engines' histograms can be merged exactly,
 * never by averaging percentiles), the merge of several engines' JSON
 * documents (`arena-load --merge a.json b.json`), and the start barrier
 * (`--wait-go`) that lets loaders on several hosts begin at one moment.
 *
 * Encoding (schema "arena-hist/1"), one JSON object:
 *   {"encoding":"arena-hist/1","sub_bits":11,"highest":100000000,"count":N,
 *    "min":..,"max":..,"sum":..,"sum_sq":..,"counts":"BASE64"}
 * counts is base64 of a byte string of LEB128 varint pairs (gap, count), one
 * per non-zero bucket in index order: gap is the number of zero buckets since
 * the previous non-zero one (or since index 0). Every field needed to
 * recompute percentiles, mean and stdev is kept, so decode(encode(h)) == h.
 */
#ifndef ARENA_HCODEC_H
#define ARENA_HCODEC_H

#include "histogram.h"

#include <stddef.h>
#include <stdio.h>

#define HCODEC_ENCODING "arena-hist/1"

/* Writes h as the JSON object above (no trailing newline). */
void hcodec_write_json(FILE *out, const hist_t *h);

/* Parses one encoded object from text[0..len) into h, which this
 * initialises (free it with hist_free). 0 on success; -1 with a one-line
 * reason in err for anything malformed or inconsistent. */
int hcodec_read_json(const char *text, size_t len, hist_t *h, char *err, size_t errlen);

/* base64 of the varint run-length form of h's counts; malloc'd, NUL-ended. */
char *hcodec_encode_counts(const hist_t *h);

/* `arena-load --merge FILE...`: reads engine JSON documents written with
 * --histograms, merges their whole-run and per-second histograms exactly and
 * prints one JSON document with the merged percentiles and timeline.
 * Returns the exit status (2 for bad input, with one line on stderr). */
int hcodec_merge_main(int nfiles, char **files, FILE *out);

/* `--wait-go`: says "ready" on stderr, then blocks until a line "go" arrives
 * on stdin. 0 on go; -1 (reason in err) on end of input or another line. */
int hcodec_wait_go(char *err, size_t errlen);

#endif
