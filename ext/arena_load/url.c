#include "url.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

int address_is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        const uint8_t *a = in6->sin6_addr.s6_addr;
        if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return 1;
        /* ::ffff:127.x.y.z */
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        return memcmp(a, mapped, 12) == 0 && a[12] == 127;
    }
    return sa->sa_family == AF_UNIX;
}

static int parse_unix(target_t *t, const char *rest, char *err, size_t errlen)
{
    /* unix:/path/to.sock:/request/path — the socket path ends at the first
     * ":/" (or at the end, and the request path is "/"). */
    const char *sep = strstr(rest, ":/");
    size_t plen = sep ? (size_t)(sep - rest) : strlen(rest);
    struct sockaddr_un *un = (struct sockaddr_un *)&t->addr;
    if (plen == 0) {
        snprintf(err, errlen, "malformed target '%s': no socket path after unix:", t->text);
        return -1;
    }
    if (plen >= sizeof un->sun_path) {
        snprintf(err, errlen, "malformed target '%s': socket path too long", t->text);
        return -1;
    }
    memset(un, 0, sizeof *un);
    un->sun_family = AF_UNIX;
    memcpy(un->sun_path, rest, plen);
    t->family = AF_UNIX;
    t->addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen + 1);
    snprintf(t->path, sizeof t->path, "%s", sep ? sep + 1 : "/");
    snprintf(t->host_header, sizeof t->host_header, "localhost");
    snprintf(t->where, sizeof t->where, "%.*s", (int)plen, rest);
    return 0;
}

static int valid_path(const char *p)
{
    for (; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 127) return 0;
    return 1;
}

int target_parse(target_t *t, const char *text, int allow_remote, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (strlen(text) >= sizeof t->text) {
        snprintf(err, errlen, "malformed target: too long");
        return -1;
    }
    snprintf(t->text, sizeof t->text, "%s", text);

    if (strncmp(text, "unix:", 5) == 0) {
        if (parse_unix(t, text + 5, err, errlen) < 0) return -1;
        if (!valid_path(t->path)) {
            snprintf(err, errlen, "malformed target '%s': bad character in path", text);
            return -1;
        }
        return 0;
    }
    if (strncmp(text, "https://", 8) == 0) {
        t->tls = 1;
    } else if (strncmp(text, "http://", 7) != 0) {
        snprintf(err, errlen, "malformed target '%s': expected http(s)://HOST:PORT/path or unix:/path.sock:/path", text);
        return -1;
    }

    const char *h = text + (t->tls ? 8 : 7);
    const char *slash = strchr(h, '/');
    const char *authority_end = slash ? slash : h + strlen(h);
    char host[256];
    const char *port_s = NULL;
    size_t port_len = 0;
    int bracketed = 0;

    if (*h == '[') {
        const char *close = memchr(h, ']', (size_t)(authority_end - h));
        if (!close) {
            snprintf(err, errlen, "malformed target '%s': unclosed '['", text);
            return -1;
        }
        size_t n = (size_t)(close - h - 1);
        if (n == 0 || n >= sizeof host) goto bad_host;
        memcpy(host, h + 1, n);
        host[n] = 0;
        bracketed = 1;
        if (close + 1 < authority_end) {
            if (close[1] != ':') goto bad_host;
            port_s = close + 2;
            port_len = (size_t)(authority_end - port_s);
        }
    } else {
        const char *colon = memchr(h, ':', (size_t)(authority_end - h));
        const char *host_end = colon ? colon : authority_end;
        size_t n = (size_t)(host_end - h);
        if (n == 0 || n >= sizeof host) goto bad_host;
        memcpy(host, h, n);
        host[n] = 0;
        if (colon) {
            port_s = colon + 1;
            port_len = (size_t)(authority_end - port_s);
        }
    }
    if (memchr(h, '@', (size_t)(authority_end - h))) {
        snprintf(err, errlen, "malformed target '%s': user info is not supported", text);
        return -1;
    }

    snprintf(t->host, sizeof t->host, "%s", host);
    long port = t->tls ? 443 : 80;
    if (port_s) {
        char pbuf[8];
        if (port_len == 0 || port_len >= sizeof pbuf) goto bad_port;
        memcpy(pbuf, port_s, port_len);
        pbuf[port_len] = 0;
        char *end;
        port = strtol(pbuf, &end, 10);
        if (*end || pbuf[0] < '0' || pbuf[0] > '9' || port < 1 || port > 65535) goto bad_port;
    }
    snprintf(t->path, sizeof t->path, "%s", slash ? slash : "/");
    if (!valid_path(t->path)) {
        snprintf(err, errlen, "malformed target '%s': bad character in path", text);
        return -1;
    }
    {
        /* Drop a #fragment: it is never sent. */
        char *frag = strchr(t->path, '#');
        if (frag) *frag = 0;
    }

    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_family = AF_UNSPEC;
    char portstr[8];
    snprintf(portstr, sizeof portstr, "%ld", port);
    int rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc != 0 || !res) {
        snprintf(err, errlen, "cannot resolve host '%s': %s", host, rc ? gai_strerror(rc) : "no address");
        return -1;
    }
    /* Prefer a loopback answer when a name resolves to several addresses. */
    struct addrinfo *pick = res;
    for (struct addrinfo *a = res; a; a = a->ai_next)
        if (address_is_loopback(a->ai_addr)) { pick = a; break; }
    if (!allow_remote && !address_is_loopback(pick->ai_addr)) {
        char ip[INET6_ADDRSTRLEN] = "?";
        if (pick->ai_family == AF_INET)
            inet_ntop(AF_INET, &((struct sockaddr_in *)pick->ai_addr)->sin_addr, ip, sizeof ip);
        else if (pick->ai_family == AF_INET6)
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)pick->ai_addr)->sin6_addr, ip, sizeof ip);
        snprintf(err, errlen, "refusing non-loopback address %s (%s): pass --allow-remote to load other hosts", ip, host);
        freeaddrinfo(res);
        return -1;
    }
    memcpy(&t->addr, pick->ai_addr, pick->ai_addrlen);
    t->addrlen = pick->ai_addrlen;
    t->family = pick->ai_family;
    freeaddrinfo(res);

    int default_port = port == (t->tls ? 443 : 80);
    if (bracketed)
        snprintf(t->host_header, sizeof t->host_header, default_port ? "[%s]" : "[%s]:%ld", host, port);
    else
        snprintf(t->host_header, sizeof t->host_header, default_port ? "%s" : "%s:%ld", host, port);
    snprintf(t->where, sizeof t->where, bracketed ? "[%s]:%ld" : "%s:%ld", host, port);
    return 0;

bad_host:
    snprintf(err, errlen, "malformed target '%s': bad host", text);
    return -1;
bad_port:
    snprintf(err, errlen, "malformed target '%s': bad port", text);
    return -1;
}
