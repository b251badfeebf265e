/* Minimal test helpers: CHECK counts; finish() prints "N passed, M failed". */
#ifndef ARENA_CHECK_H
#define ARENA_CHECK_H

#include <stdio.h>

static int checks_passed, checks_failed;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (cond) {                                                         \
            checks_passed++;                                                \
        } else {                                                            \
            checks_failed++;                                                \
            fprintf(stdout, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stdout, __VA_ARGS__);                                   \
            fputc('\n', stdout);                                            \
        }                                                                   \
    } while (0)

static inline int finish(void)
{
    printf("%d passed, %d failed\n", checks_passed, checks_failed);
    return checks_failed ? 1 : 0;
}

#endif
