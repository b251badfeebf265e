/* Target parsing and the loopback guard. */
#ifndef ARENA_URL_H
#define ARENA_URL_H

#include <sys/socket.h>

typedef struct {
    char text[1024];            /* the target as given */
    int family;                 /* AF_INET, AF_INET6 or AF_UNIX */
    struct sockaddr_storage addr;
    socklen_t addrlen;
    char host_header[300];      /* value of the Host header */
    char path[2048];            /* request target, starts with '/' */
    char where[320];            /* host:port or socket path, for messages */
    int tls;                    /* https:// */
    char host[256];             /* the host as written (SNI, certificate name) */
} target_t;

/* Parses http(s)://HOST[:PORT]/path or unix:/path/to.sock[:/path] and resolves
 * HOST. Refuses addresses outside 127.0.0.0/8 and ::1 unless allow_remote.
 * Returns 0, or -1 with a one-line reason in err. */
int target_parse(target_t *t, const char *text, int allow_remote, char *err, size_t errlen);

/* Is this resolved address a loopback one? */
int address_is_loopback(const struct sockaddr *sa);

#endif
