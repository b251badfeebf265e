#ifndef ARENA_CLOCK_H
#define ARENA_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

#endif
