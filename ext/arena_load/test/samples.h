/* Sample responses shared by the parser tests and the random fuzz driver. */
#ifndef ARENA_SAMPLES_H
#define ARENA_SAMPLES_H

#include <stddef.h>

typedef struct {
    int status;
    unsigned long long body;
    int keep_alive;
    int matched;
} expected_response;

typedef struct {
    const char *name;
    const char *bytes;
    const char *head_mask; /* per response: 'H' if the request was HEAD, else '.' */
    const char *expect;    /* body substring expected, or NULL */
    int eof;               /* the server closes after the bytes */
    int error;             /* the stream must end in a parse error */
    int n;                 /* complete responses */
    expected_response r[4];
} sample;

static const sample samples[] = {
    {"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello", "", "ell", 0, 0, 1,
     {{200, 5, 1, 1}}},
    {"chunked with extensions and trailers",
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nServer: t\r\n\r\n"
     "5;foo=bar\r\nhello\r\n6 ; x=\"y\"\r\n world\r\nA\r\n0123456789\r\n0;last=1\r\nX-Trailer: 1\r\nY: 2\r\n\r\n",
     "", "lo wo", 0, 0, 1, {{200, 21, 1, 1}}},
    {"http/1.0 close-delimited", "HTTP/1.0 200 OK\r\nServer: x\r\n\r\nbody until close", "", "until", 1, 0, 1,
     {{200, 16, 0, 1}}},
    {"http/1.1 no length, close-delimited", "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nbody", "", NULL, 1, 0, 1,
     {{200, 4, 0, 1}}},
    {"connection close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", "", NULL, 0, 0, 1,
     {{200, 2, 0, 1}}},
    {"204 304 HEAD bodiless",
     "HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n"
     "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n"
     "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
     "..HH", NULL, 0, 0, 4, {{204, 0, 1, 1}, {304, 0, 1, 1}, {200, 0, 1, 1}, {200, 0, 1, 1}}},
    {"pipelined pair",
     "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
     "HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\n\r\n3\r\nxyz\r\n0\r\n\r\n",
     "", "b", 0, 0, 2, {{200, 3, 1, 1}, {404, 3, 1, 0}}},
    {"100 continue then 200",
     "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx", "", NULL, 0, 0, 1,
     {{201, 1, 1, 1}}},
    {"http/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nhi", "", NULL, 0, 0,
     1, {{200, 2, 1, 1}}},
    {"bare LF and odd spacing", "HTTP/1.1 200 OK\ncontent-LENGTH:   3  \nX:y\n\nabc", "", NULL, 0, 0, 1,
     {{200, 3, 1, 1}}},
    {"no reason phrase", "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", "", NULL, 0, 0, 1, {{200, 0, 1, 1}}},
    {"body mismatch", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", "", "zzz", 0, 0, 1, {{200, 5, 1, 0}}},
    {"substring split by chunks", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n",
     "", "abcd", 0, 0, 1, {{200, 4, 1, 1}}},
    {"connection close among tokens",
     "HTTP/1.1 500 Oops\r\nConnection: foo, close\r\nContent-Length: 1\r\n\r\nx", "", NULL, 0, 0, 1,
     {{500, 1, 0, 1}}},
    {"connection close after byte 64 of the value",
     "HTTP/1.1 200 OK\r\nConnection: x-one-rather-long-token-name, x-another-rather-long-token-name, x-third, close\r\n"
     "Content-Length: 2\r\n\r\nok",
     "", NULL, 0, 0, 1, {{200, 2, 0, 1}}},
    {"chunked after byte 64 of the value",
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: x-custom-coding-with-a-long-name, x-another-custom-coding-name, chunked\r\n\r\n"
     "3\r\nabc\r\n0\r\n\r\n",
     "", "abc", 0, 0, 1, {{200, 3, 1, 1}}},
    {"chunked not final: body until close",
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n", "", NULL,
     1, 0, 1, {{200, 13, 0, 1}}},
    {"chunked on an earlier line, gzip on the last",
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\nxyz", "", NULL, 1, 0, 1,
     {{200, 3, 0, 1}}},
    {"identity is no coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\nContent-Length: 2\r\n\r\nok", "",
     NULL, 0, 0, 1, {{200, 2, 1, 1}}},
    {"keep-alive as a long token is not keep-alive",
     "HTTP/1.0 200 OK\r\nConnection: keep-alive-please\r\nContent-Length: 2\r\n\r\nok", "", NULL, 0, 0, 1,
     {{200, 2, 0, 1}}},
    {"error: CR inside content-length", "HTTP/1.1 200 OK\r\nContent-Length: 1\r2\r\n\r\nx", "", NULL, 0, 1, 0,
     {{0, 0, 0, 0}}},
    {"error: CR inside connection", "HTTP/1.1 200 OK\r\nConnection: cl\rose\r\nContent-Length: 1\r\n\r\nx", "", NULL, 0,
     1, 0, {{0, 0, 0, 0}}},
    {"error: http/2", "HTTP/2 200\r\n\r\n", "", NULL, 0, 1, 0, {{0, 0, 0, 0}}},
    {"error: not http", "SSH-2.0-OpenSSH\r\n", "", NULL, 0, 1, 0, {{0, 0, 0, 0}}},
    {"error: bad status", "HTTP/1.1 2x0 OK\r\n\r\n", "", NULL, 0, 1, 0, {{0, 0, 0, 0}}},
    {"error: bad content-length", "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n", "", NULL, 0, 1, 0, {{0, 0, 0, 0}}},
    {"error: conflicting content-length", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", "",
     NULL, 0, 1, 0, {{0, 0, 0, 0}}},
    {"error: bad chunk size after a good response",
     "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
     "", NULL, 0, 1, 1, {{200, 1, 1, 1}}},
    {"error: chunk data without CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\naXY", "", NULL, 0, 1, 0,
     {{0, 0, 0, 0}}},
    {"truncated at close", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "", NULL, 1, 0, 0, {{0, 0, 0, 0}}},
};

#define NSAMPLES (sizeof samples / sizeof samples[0])

#endif
