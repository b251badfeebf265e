/* Incremental HTTP/1.1 response parser.
 *
 * The parser keeps all of its state in the struct: bytes may arrive split at
 * any boundary and are never copied or buffered. It stops at the end of each
 * response so that pipelined responses can be parsed back to back: the caller
 * checks `state`, takes the result, calls http_parser_reset and feeds the rest.
 */
#ifndef ARENA_PARSER_H
#define ARENA_PARSER_H

#include <stddef.h>
#include <stdint.h>

/* A body substring to look for, with its KMP failure table (built once). */
typedef struct {
    const char *needle;
    size_t len;
    const uint32_t *fail;
} body_expect;

/* Builds the KMP failure table for needle (fail has len entries). */
void body_expect_init(body_expect *e, const char *needle, size_t len, uint32_t *fail);

enum { HP_BUSY = 0, HP_DONE = 1, HP_ERROR = 2 };

/* Largest header section accepted (status line + headers, or trailers). */
#define HP_MAX_HEADER_BYTES (64 * 1024)

typedef struct {
    int state;          /* HP_BUSY, HP_DONE or HP_ERROR */
    int status;         /* status code, once the status line is read */
    int http_minor;     /* 0 for HTTP/1.0, 1 for HTTP/1.1 */
    int keep_alive;     /* valid once HP_DONE: may the connection be reused */
    const char *error;  /* valid once HP_ERROR: what was wrong */
    uint64_t body_bytes;/* body bytes (after dechunking) */
    uint64_t nread;     /* bytes consumed for this response so far */
    int matched;        /* expected substring seen (1 if none expected) */

    /* private */
    int st;
    int no_body;        /* response to HEAD: no body whatever the headers say */
    int idx;
    int hdr;            /* header being read (HDR_*) */
    int chunked, has_length, conn_close, conn_keep_alive, value_ended;
    int te_seen;        /* a Transfer-Encoding header was given */
    int te_last;        /* last coding of this Transfer-Encoding line: -1 none, 1 chunked, 0 other */
    uint8_t tok_len;    /* token being read in a Transfer-Encoding or Connection value */
    uint8_t tok_skip;   /* rest of this list element is not a token of interest */
    char tok[12];       /* long enough for "keep-alive"; longer tokens are not of interest */
    uint64_t length;    /* Content-Length, or remaining bytes of body/chunk */
    uint64_t num;       /* number being accumulated */
    uint32_t header_bytes;
    uint8_t name_len;
    char name[24];
    const body_expect *expect;
    uint32_t match_pos;
} http_parser;

/* Prepares for a new response. no_body: the request was HEAD. expect may be NULL. */
void http_parser_reset(http_parser *p, int no_body, const body_expect *expect);

/* Consumes bytes of the current response; returns how many (<= len). Stops
 * right after the end of a response (state HP_DONE) or at an error. */
size_t http_parser_feed(http_parser *p, const char *buf, size_t len);

/* The peer closed the connection. Returns 1 (and state HP_DONE) when that
 * ends a response delimited by close, 0 when the response is incomplete. */
int http_parser_eof(http_parser *p);

#endif
