/* `--wait-go`, the start barrier of distributed runs: the engine connects,
 * says "ready" on stderr, then blocks until a line "go" arrives on stdin, so
 * loaders on several hosts begin at one moment. 0 on go; -1 (reason in err)
 * on end of input or another line. */
#ifndef ARENA_BARRIER_H
#define ARENA_BARRIER_H

#include <stddef.h>

int wait_go(char *err, size_t errlen);

#endif
