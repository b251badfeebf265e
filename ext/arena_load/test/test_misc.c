/* Target parsing, the loopback guard, mix lines and flags. */
#include "check.h"
#include "mix.h"
#include "options.h"
#include "url.h"

#include <netinet/in.h>
#include <string.h>

static int parses(const char *text, int allow_remote, target_t *t)
{
    char err[512];
    return target_parse(t, text, allow_remote, err, sizeof err) == 0;
}

static void check_targets(void)
{
    target_t t;
    CHECK(parses("http://127.0.0.1:8080/x?y=1", 0, &t) && t.family == AF_INET && !strcmp(t.path, "/x?y=1") &&
              !strcmp(t.host_header, "127.0.0.1:8080"),
          "ipv4 loopback");
    CHECK(parses("http://127.9.8.7:1/", 0, &t), "all of 127.0.0.0/8");
    CHECK(parses("http://127.0.0.1:8080", 0, &t) && !strcmp(t.path, "/"), "no path means /");
    CHECK(parses("http://[::1]:9292/a", 0, &t) && t.family == AF_INET6 && !strcmp(t.host_header, "[::1]:9292"),
          "ipv6 loopback");
    CHECK(parses("http://localhost:9292/", 0, &t), "localhost resolves to loopback");
    CHECK(parses("unix:/tmp/a.sock:/path", 0, &t) && t.family == AF_UNIX && !strcmp(t.path, "/path") &&
              !strcmp(t.where, "/tmp/a.sock"),
          "unix socket with path");
    CHECK(parses("unix:/tmp/a.sock", 0, &t) && !strcmp(t.path, "/"), "unix socket without path");
    CHECK(!parses("http://10.0.0.1:80/", 0, &t), "private address refused");
    CHECK(!parses("http://8.8.8.8/", 0, &t), "public address refused");
    CHECK(!parses("http://[2001:db8::1]:80/", 0, &t), "ipv6 non-loopback refused");
    CHECK(!parses("http://[::ffff:10.0.0.1]:80/", 0, &t), "mapped non-loopback refused");
    CHECK(!parses("http://0.0.0.0:80/", 0, &t), "0.0.0.0 refused");
    CHECK(parses("http://10.0.0.1:80/", 1, &t), "--allow-remote lets it through (nothing is sent)");
    /* The guard holds for every transport: TLS and HTTP/2 targets are the same addresses. */
    CHECK(parses("https://127.0.0.1:8443/x", 0, &t) && t.tls && !strcmp(t.host, "127.0.0.1") &&
              !strcmp(t.host_header, "127.0.0.1:8443"),
          "https target");
    CHECK(parses("https://localhost/", 0, &t) && t.tls && !strcmp(t.host_header, "localhost"), "https default port");
    CHECK(!parses("https://10.0.0.1:443/", 0, &t), "https non-loopback refused");
    static const char *bad[] = {"ftp://127.0.0.1/", "http://", "http://:80/", "http://127.0.0.1:99999/",
                                "http://127.0.0.1:abc/", "http://127.0.0.1:/", "https://", "https://8.8.8.8/", "unix:",
                                "127.0.0.1:80", "http://[::1/", "http://u@127.0.0.1/", "http://127.0.0.1/a b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK(!parses(bad[i], 0, &t), "malformed: %s", bad[i]);
}

static void check_mix(void)
{
    char err[200];
    mix_line m;
    char l1[] = "3 GET /server 200 pid:\r\n";
    CHECK(mix_parse_line(l1, &m, err, sizeof err) == 1 && m.weight == 3 && !strcmp(m.method, "GET") &&
              !strcmp(m.path, "/server") && m.expect_status == 200 && !strcmp(m.expect_body, "pid:"),
          "full line");
    char l2[] = "  1 POST /upload 201";
    CHECK(mix_parse_line(l2, &m, err, sizeof err) == 1 && m.expect_body == NULL, "no body substring");
    char l3[] = "1 GET /sleep?ms=5 * hello world";
    CHECK(mix_parse_line(l3, &m, err, sizeof err) == 1 && m.expect_status == EXPECT_ANY &&
              !strcmp(m.expect_body, "hello world"),
          "any status, substring with spaces");
    char l4[] = "# a comment", l5[] = "   ";
    CHECK(mix_parse_line(l4, &m, err, sizeof err) == 0 && mix_parse_line(l5, &m, err, sizeof err) == 0, "comments");
    char b1[] = "0 GET / 200", b2[] = "1 GET x 200", b3[] = "1 GET / abc", b4[] = "1 GET /", b5[] = "1 G@T / 200";
    CHECK(mix_parse_line(b1, &m, err, sizeof err) < 0, "zero weight");
    CHECK(mix_parse_line(b2, &m, err, sizeof err) < 0, "relative path");
    CHECK(mix_parse_line(b3, &m, err, sizeof err) < 0, "bad status");
    CHECK(mix_parse_line(b4, &m, err, sizeof err) < 0, "missing status");
    CHECK(mix_parse_line(b5, &m, err, sizeof err) < 0, "bad method");
    char n1[] = "5:get_items_id GET /items/7 200", n2[] = "5:bad/name GET / 200", n3[] = "5: GET / 200";
    CHECK(mix_parse_line(n1, &m, err, sizeof err) == 1 && m.weight == 5 && !strcmp(m.name, "get_items_id") &&
              !strcmp(m.path, "/items/7"),
          "a named line");
    char n4[] = "2 GET /a 200";
    CHECK(mix_parse_line(n4, &m, err, sizeof err) == 1 && m.name == NULL, "no name");
    CHECK(mix_parse_line(n2, &m, err, sizeof err) < 0 && strstr(err, "bad request name"), "bad name");
    CHECK(mix_parse_line(n3, &m, err, sizeof err) < 0, "empty name");
    mix_t mx;
    CHECK(mix_load(&mx, "/nonexistent/mix", err, sizeof err) < 0 && strstr(err, "cannot read"), "unreadable file");
}

static int opts(options_t *o, const char *const *args, int n)
{
    char *argv[32];
    char err[300];
    argv[0] = "arena-load";
    for (int i = 0; i < n; i++) argv[i + 1] = (char *)args[i];
    return options_parse(o, n + 1, argv, err, sizeof err);
}

static void check_options(void)
{
    options_t o;
    const char *a1[] = {"-c", "50", "-t2", "--duration=500ms", "-H", "X-A: 1", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a1, 7) == OPTIONS_RUN && o.connections == 50 && o.threads == 2 && o.duration_s == 0.5 &&
              o.nheaders == 1,
          "flags");
    const char *a2[] = {"http://127.0.0.1:1/"};
    CHECK(opts(&o, a2, 1) == OPTIONS_RUN && o.duration_s == 10, "default duration bounds the run");
    const char *a3[] = {"-n", "100", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a3, 3) == OPTIONS_RUN && o.duration_s == 0 && o.total == 100, "-n alone");
    const char *a4[] = {"--bogus", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a4, 2) == OPTIONS_ERROR, "unknown long flag");
    const char *a5[] = {"-z", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a5, 2) == OPTIONS_ERROR, "unknown short flag");
    const char *a6[] = {"-c", "0", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a6, 3) == OPTIONS_ERROR, "zero connections");
    const char *a7[] = {"-c"};
    CHECK(opts(&o, a7, 1) == OPTIONS_ERROR, "missing value");
    const char *a8[] = {"--cpus", "0,2-3", "-H", "nocolon", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a8, 5) == OPTIONS_ERROR, "header without colon");
    const char *a9[] = {"--cpus", "0,2-3", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a9, 3) == OPTIONS_RUN && o.ncpus == 3 && o.cpus[2] == 3, "cpu list");
    const char *a10[] = {"-R", "1000", "-r", "5", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a10, 5) == OPTIONS_ERROR, "-r with -R");
    const char *a11[] = {"-t", "8", "-c", "2", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a11, 5) == OPTIONS_RUN && o.threads == 2, "threads capped by connections");
    const char *a12[] = {"http://127.0.0.1:1/", "http://127.0.0.1:2/"};
    CHECK(opts(&o, a12, 2) == OPTIONS_ERROR, "two targets");
    const char *a13[] = {"--timeline-ms=100", "--no-keep-alive", "--json", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a13, 4) == OPTIONS_RUN && o.timeline_ms == 100 && !o.keep_alive && o.json == 1, "long forms");
    const char *a14[] = {"--json=yes", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a14, 2) == OPTIONS_ERROR, "a switch takes no value");
    const char *a15[] = {"--timeline-ms", "0", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a15, 3) == OPTIONS_ERROR, "zero timeline interval");
    const char *a16[] = {"http://127.0.0.1:1/", "--merge", "a.json"};
    CHECK(opts(&o, a16, 3) == OPTIONS_ERROR, "--merge only first");
    const char *a17[] = {"-p", "2", "--no-keep-alive", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a17, 4) == OPTIONS_ERROR, "pipelining needs keep-alive");
    const char *a19[] = {"--cpus", "0-1", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a19, 3) == OPTIONS_RUN && o.threads == 2, "a thread per CPU given");
    const char *a20[] = {"--cpus", "0-1", "-t", "1", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a20, 5) == OPTIONS_RUN && o.threads == 1, "-t wins over the CPU count");
    const char *a21[] = {"--cpus", "0-3", "-c", "3", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a21, 5) == OPTIONS_RUN && o.threads == 3, "threads capped by connections");
    const char *a22[] = {"-R", "0.2", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a22, 3) == OPTIONS_RUN && o.rate == 0.2, "a fractional rate");
    const char *a23[] = {"-R", "0", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a23, 3) == OPTIONS_ERROR, "a zero rate");
    const char *a24[] = {"-R", "0,2", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a24, 3) == OPTIONS_ERROR, "a decimal comma");
    const char *a25[] = {"-R", "1e-4", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a25, 3) == OPTIONS_ERROR, "a rate below one request per 1000 s");
    const char *a18[] = {"--connection", "5", "http://127.0.0.1:1/"};
    CHECK(opts(&o, a18, 3) == OPTIONS_ERROR, "a prefix is not a flag");
}

int main(void)
{
    check_targets();
    check_mix();
    check_options();
    return finish();
}
