#include "barrier.h"

#include <stdio.h>
#include <string.h>

int wait_go(char *err, size_t errlen)
{
    fputs("ready\n", stderr);
    fflush(stderr);
    char line[64];
    if (!fgets(line, sizeof line, stdin)) {
        snprintf(err, errlen, "--wait-go: input closed before 'go'");
        return -1;
    }
    line[strcspn(line, "\r\n")] = 0;
    if (strcmp(line, "go") != 0) {
        snprintf(err, errlen, "--wait-go: expected 'go', got '%.32s'", line);
        return -1;
    }
    return 0;
}
