/* `arena-load --merge FILE...`: reads engine JSON documents written with
 * --histograms, merges their whole-run and per-second histograms exactly
 * (never by averaging percentiles) and prints one JSON document with the
 * merged percentiles and timeline. Returns the exit status (2 for bad input,
 * with one line on stderr). */
#ifndef ARENA_MERGE_H
#define ARENA_MERGE_H

#include <stdio.h>

int merge_main(int nfiles, char **files, FILE *out);

#endif
