/* A compact, lossless text encoding of a latency histogram, so several
 * engines' histograms can be merged exactly (merge.c), never by averaging
 * percentiles.
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

#endif
