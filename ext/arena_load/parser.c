#include "parser.h"

#include <string.h>

enum {
    S_PROTO, S_MAJOR, S_DOT, S_MINOR, S_SP, S_STATUS, S_AFTER_STATUS, S_REASON,
    S_LINE_START, S_NAME, S_VALUE_WS, S_VALUE, S_VALUE_LF, S_SKIP_LINE, S_HEADERS_LF,
    S_BODY_LENGTH, S_BODY_EOF,
    S_CHUNK_SIZE, S_CHUNK_EXT, S_CHUNK_SIZE_LF, S_CHUNK_DATA, S_CHUNK_DATA_CR, S_CHUNK_DATA_LF,
    S_TRAILER_START, S_TRAILER_SKIP, S_TRAILER_LF,
    S_END
};

enum { HDR_OTHER, HDR_CONTENT_LENGTH, HDR_TRANSFER_ENCODING, HDR_CONNECTION };

#define MAX_CHUNK ((uint64_t)1 << 60)

void body_expect_init(body_expect *e, const char *needle, size_t len, uint32_t *fail)
{
    e->needle = needle;
    e->len = len;
    e->fail = fail;
    if (len == 0) return;
    fail[0] = 0;
    uint32_t k = 0;
    for (size_t i = 1; i < len; i++) {
        while (k > 0 && needle[i] != needle[k]) k = fail[k - 1];
        if (needle[i] == needle[k]) k++;
        fail[i] = k;
    }
}

void http_parser_reset(http_parser *p, int no_body, const body_expect *expect)
{
    memset(p, 0, offsetof(http_parser, name));
    p->st = S_PROTO;
    p->no_body = no_body;
    p->expect = (expect && expect->len) ? expect : NULL;
    p->matched = p->expect ? 0 : 1;
    p->match_pos = 0;
}

static void match_body(http_parser *p, const char *b, size_t n)
{
    const body_expect *e = p->expect;
    if (!e || p->matched) return;
    uint32_t k = p->match_pos;
    for (size_t i = 0; i < n; i++) {
        while (k > 0 && b[i] != e->needle[k]) k = e->fail[k - 1];
        if (b[i] == e->needle[k] && ++k == e->len) {
            p->matched = 1;
            return;
        }
    }
    p->match_pos = k;
}

static int fail(http_parser *p, const char *why)
{
    p->state = HP_ERROR;
    p->error = why;
    return 0;
}

static void finish(http_parser *p)
{
    p->state = HP_DONE;
    p->st = S_END;
    if (p->http_minor == 0)
        p->keep_alive = p->conn_keep_alive && !p->conn_close;
    else
        p->keep_alive = !p->conn_close;
}

static int lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

/* Transfer-Encoding and Connection values are comma separated lists. They
 * are read one character at a time, never stored (a value may be of any
 * length): each list element is kept only while it can still be one of the
 * short tokens that matter. tok_skip: 0 in the token, 1 the token ended at
 * white space, 2 in its parameters (after ';'), 3 not a token of interest. */
static int tok_is(const http_parser *p, const char *token)
{
    size_t n = strlen(token);
    return p->tok_skip != 3 && p->tok_len == n && memcmp(p->tok, token, n) == 0;
}

static void end_element(http_parser *p)
{
    if (p->tok_len || p->tok_skip == 3) {
        if (p->hdr == HDR_TRANSFER_ENCODING) {
            /* Only the final coding decides the framing; "identity" (from
             * RFC 2616) is no coding at all. */
            if (!tok_is(p, "identity")) p->te_last = tok_is(p, "chunked");
        } else {
            if (tok_is(p, "close")) p->conn_close = 1;
            if (tok_is(p, "keep-alive")) p->conn_keep_alive = 1;
        }
    }
    p->tok_len = 0;
    p->tok_skip = 0;
}

static void list_char(http_parser *p, int c)
{
    if (c == ',') {
        end_element(p);
    } else if (p->tok_skip >= 2) {
        /* parameters or an uninteresting element: ignored up to the next ',' */
    } else if (c == ' ' || c == '\t') {
        if (p->tok_len) p->tok_skip = 1;
    } else if (c == ';') {
        p->tok_skip = 2;
    } else if (p->tok_skip == 1 || p->tok_len >= sizeof p->tok) {
        p->tok_skip = 3;
    } else {
        p->tok[p->tok_len++] = (char)lower(c);
    }
}

static int header_kind(const http_parser *p)
{
    if (p->name_len == 14 && memcmp(p->name, "content-length", 14) == 0) return HDR_CONTENT_LENGTH;
    if (p->name_len == 17 && memcmp(p->name, "transfer-encoding", 17) == 0) return HDR_TRANSFER_ENCODING;
    if (p->name_len == 10 && memcmp(p->name, "connection", 10) == 0) return HDR_CONNECTION;
    return HDR_OTHER;
}

/* A header line ended: apply what it said. Returns 0 on a malformed value. */
static int end_header(http_parser *p)
{
    switch (p->hdr) {
    case HDR_CONTENT_LENGTH:
        if (p->idx == 0) return fail(p, "empty Content-Length");
        if (p->has_length && p->length != p->num) return fail(p, "conflicting Content-Length");
        p->has_length = 1;
        p->length = p->num;
        break;
    case HDR_TRANSFER_ENCODING:
        end_element(p);
        /* Several Transfer-Encoding lines form one list: the last coding of
         * the last line is the final one. */
        if (p->te_last >= 0) {
            p->te_seen = 1;
            p->chunked = p->te_last;
        }
        break;
    case HDR_CONNECTION:
        end_element(p);
        break;
    }
    return 1;
}

/* The blank line after the headers: choose how the body is delimited. */
static void end_headers(http_parser *p)
{
    int s = p->status;
    if (s >= 100 && s < 200 && s != 101) {
        /* Interim response (100 Continue, 103 Early Hints): the real one follows. */
        int no_body = p->no_body;
        const body_expect *e = p->expect;
        uint64_t nread = p->nread;
        http_parser_reset(p, no_body, e);
        p->nread = nread;
        return;
    }
    if (s == 101) {
        p->conn_close = 1;
        finish(p);
        return;
    }
    if (p->no_body || s == 204 || s == 304) {
        finish(p);
        return;
    }
    if (p->chunked) {
        p->st = S_CHUNK_SIZE;
        p->num = 0;
        p->idx = 0;
        p->header_bytes = 0;
        return;
    }
    if (p->te_seen) {
        /* A transfer coding other than a final chunked (e.g. "chunked, gzip"):
         * the body runs until the close, whatever Content-Length says
         * (RFC 9112 6.3). */
        p->conn_close = 1;
        p->st = S_BODY_EOF;
        return;
    }
    if (p->has_length) {
        if (p->length == 0) {
            finish(p);
            return;
        }
        p->st = S_BODY_LENGTH;
        return;
    }
    /* No length: the body runs until the server closes the connection. */
    p->conn_close = 1;
    p->st = S_BODY_EOF;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = lower(c);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Body bytes of a known length (Content-Length, or one chunk): takes what
 * this read holds of it, at most what is left. */
static size_t take_body(http_parser *p, const char *buf, size_t avail)
{
    size_t n = avail < p->length ? avail : (size_t)p->length;
    match_body(p, buf, n);
    p->body_bytes += n;
    p->length -= n;
    return n;
}

/* How many of `avail` bytes a skip may take when `used` bytes of a bounded
 * section are already counted: one past the limit at most, so the limit
 * check after the skip fails at the same byte as a byte-by-byte feed. */
static size_t within_limit(uint64_t used, size_t avail)
{
    uint64_t left = used <= HP_MAX_HEADER_BYTES ? HP_MAX_HEADER_BYTES + 1 - used : 1;
    return avail < left ? avail : (size_t)left;
}

size_t http_parser_feed(http_parser *p, const char *buf, size_t len)
{
    size_t i = 0;
    if (p->state != HP_BUSY) return 0;

    while (i < len) {
        int c = (unsigned char)buf[i];
        switch (p->st) {
        case S_PROTO:
            if (c != (unsigned char)"HTTP/"[p->idx]) { fail(p, "not an HTTP/1.x status line"); goto out; }
            i++;
            if (++p->idx == 5) p->st = S_MAJOR;
            break;
        case S_MAJOR:
            if (c != '1') { fail(p, "unsupported HTTP major version"); goto out; }
            i++;
            p->st = S_DOT;
            break;
        case S_DOT:
            if (c != '.') { fail(p, "bad HTTP version"); goto out; }
            i++;
            p->st = S_MINOR;
            break;
        case S_MINOR:
            if (c != '0' && c != '1') { fail(p, "unsupported HTTP minor version"); goto out; }
            p->http_minor = c - '0';
            i++;
            p->st = S_SP;
            break;
        case S_SP:
            if (c != ' ') { fail(p, "expected a space after the version"); goto out; }
            i++;
            p->st = S_STATUS;
            p->idx = 0;
            break;
        case S_STATUS:
            if (c < '0' || c > '9') { fail(p, "bad status code"); goto out; }
            p->status = p->status * 10 + (c - '0');
            i++;
            if (++p->idx == 3) p->st = S_AFTER_STATUS;
            break;
        case S_AFTER_STATUS:
            if (c != ' ' && c != '\r' && c != '\n') { fail(p, "bad status code"); goto out; }
            p->st = S_REASON;
            break;
        case S_REASON:
        case S_SKIP_LINE: {
            /* Skipped at most to the header limit: an over-long section is
             * refused at the same byte however the stream was cut. */
            size_t room = within_limit(p->nread + i, len - i);
            const char *nl = memchr(buf + i, '\n', room);
            if (!nl) { i += room; break; }
            i = (size_t)(nl - buf) + 1;
            p->st = S_LINE_START;
            break;
        }
        case S_LINE_START:
            if (c == '\r') { i++; p->st = S_HEADERS_LF; break; }
            if (c == '\n') { i++; end_headers(p); if (p->state == HP_DONE) goto out; break; }
            if (c == ' ' || c == '\t') { p->st = S_SKIP_LINE; break; } /* obsolete line folding */
            if (c == ':') { fail(p, "empty header name"); goto out; }
            p->name_len = 0;
            p->st = S_NAME;
            break;
        case S_NAME:
            if (c == ':') {
                i++;
                p->hdr = header_kind(p);
                p->st = S_VALUE_WS;
                p->idx = 0;
                p->num = 0;
                p->tok_len = 0;
                p->tok_skip = 0;
                p->te_last = -1;
                p->value_ended = 0;
                if (p->hdr == HDR_OTHER) p->st = S_SKIP_LINE;
                break;
            }
            if (c == '\r' || c == '\n' || c == ' ' || c == '\t' || c < 32 || c == 127) { fail(p, "bad header name"); goto out; }
            if (p->name_len < sizeof p->name) p->name[p->name_len] = (char)lower(c);
            if (p->name_len < 255) p->name_len++;
            i++;
            break;
        case S_VALUE_WS:
            if (c == ' ' || c == '\t') { i++; break; }
            p->st = S_VALUE;
            break;
        case S_VALUE:
            if (c == '\n') {
                i++;
                if (!end_header(p)) goto out;
                p->st = S_LINE_START;
                break;
            }
            i++;
            if (c == '\r') {
                /* Only as the end of the line: a CR inside a value (which
                 * could hide digits of a Content-Length) is malformed. */
                p->st = S_VALUE_LF;
                break;
            }
            if (p->hdr == HDR_CONTENT_LENGTH) {
                if (c == ' ' || c == '\t') { p->value_ended = 1; break; }
                if (c < '0' || c > '9' || p->value_ended) { fail(p, "bad Content-Length"); goto out; }
                if (p->num > (MAX_CHUNK / 10)) { fail(p, "Content-Length too large"); goto out; }
                p->num = p->num * 10 + (uint64_t)(c - '0');
                p->idx++;
            } else {
                list_char(p, c);
            }
            break;
        case S_VALUE_LF:
            if (c != '\n') { fail(p, "CR inside a header value"); goto out; }
            i++;
            if (!end_header(p)) goto out;
            p->st = S_LINE_START;
            break;
        case S_HEADERS_LF:
            if (c != '\n') { fail(p, "expected LF after CR"); goto out; }
            i++;
            end_headers(p);
            if (p->state == HP_DONE) goto out;
            break;

        case S_BODY_LENGTH:
            i += take_body(p, buf + i, len - i);
            if (p->length == 0) { finish(p); goto out; }
            break;
        case S_BODY_EOF:
            match_body(p, buf + i, len - i);
            p->body_bytes += len - i;
            i = len;
            break;

        case S_CHUNK_SIZE: {
            int h = hexval(c);
            if (h >= 0) {
                if (p->num >= MAX_CHUNK) { fail(p, "chunk size too large"); goto out; }
                p->num = p->num * 16 + (uint64_t)h;
                p->idx++;
                i++;
                break;
            }
            if (p->idx == 0) { fail(p, "bad chunk size"); goto out; }
            if (c == ';' || c == ' ' || c == '\t') { i++; p->st = S_CHUNK_EXT; break; }
            if (c == '\r') { i++; p->st = S_CHUNK_SIZE_LF; break; }
            if (c == '\n') { p->st = S_CHUNK_SIZE_LF; break; }
            fail(p, "bad chunk size");
            goto out;
        }
        case S_CHUNK_EXT: {
            size_t room = within_limit(p->header_bytes, len - i);
            const char *nl = memchr(buf + i, '\n', room);
            if (!nl) { p->header_bytes += (uint32_t)room; i += room; break; }
            p->header_bytes += (uint32_t)((size_t)(nl - buf) - i);
            i = (size_t)(nl - buf);
            p->st = S_CHUNK_SIZE_LF;
            break;
        }
        case S_CHUNK_SIZE_LF:
            if (c != '\n') { fail(p, "expected LF after chunk size"); goto out; }
            i++;
            p->idx = 0;
            if (p->num == 0) {
                p->st = S_TRAILER_START;
                p->header_bytes = 0;
            } else {
                p->length = p->num;
                p->num = 0;
                p->st = S_CHUNK_DATA;
            }
            break;
        case S_CHUNK_DATA:
            i += take_body(p, buf + i, len - i);
            if (p->length == 0) p->st = S_CHUNK_DATA_CR;
            break;
        case S_CHUNK_DATA_CR:
            if (c == '\r') { i++; p->st = S_CHUNK_DATA_LF; break; }
            if (c == '\n') { p->st = S_CHUNK_DATA_LF; break; }
            fail(p, "expected CRLF after chunk data");
            goto out;
        case S_CHUNK_DATA_LF:
            if (c != '\n') { fail(p, "expected CRLF after chunk data"); goto out; }
            i++;
            p->st = S_CHUNK_SIZE;
            p->num = 0;
            p->idx = 0;
            p->header_bytes = 0;
            break;
        case S_TRAILER_START:
            if (c == '\r') { i++; p->st = S_TRAILER_LF; break; }
            if (c == '\n') { i++; finish(p); goto out; }
            p->st = S_TRAILER_SKIP;
            break;
        case S_TRAILER_SKIP: {
            size_t room = within_limit(p->header_bytes, len - i);
            const char *nl = memchr(buf + i, '\n', room);
            size_t end = nl ? (size_t)(nl - buf) + 1 : i + room;
            p->header_bytes += (uint32_t)(end - i);
            i = end;
            if (nl) p->st = S_TRAILER_START;
            break;
        }
        case S_TRAILER_LF:
            if (c != '\n') { fail(p, "expected LF after CR"); goto out; }
            i++;
            finish(p);
            goto out;
        default:
            fail(p, "parser misuse");
            goto out;
        }
        /* Bound the header section, chunk extensions and trailers. */
        if (p->st < S_BODY_LENGTH ? p->nread + i > HP_MAX_HEADER_BYTES : p->header_bytes > HP_MAX_HEADER_BYTES) {
            fail(p, "header section too large");
            goto out;
        }
    }
out:
    p->nread += i;
    return i;
}

int http_parser_eof(http_parser *p)
{
    if (p->state == HP_BUSY && p->st == S_BODY_EOF) {
        finish(p);
        p->keep_alive = 0;
        return 1;
    }
    return 0;
}
