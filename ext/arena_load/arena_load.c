/* arena-load: a native HTTP/1.1 load engine for Arena.
 *
 * main: flags, target, requests, a blocking probe, the workers, signals, the
 * report. Exit 0 after a run (even one stopped by SIGINT/SIGTERM), 2 for bad
 * input, 1 for a run that could not start. */
#include "clock.h"
#include "barrier.h"
#include "merge.h"
#include "options.h"
#include "report.h"
#include "request.h"
#include "stats.h"
#include "transport.h"
#include "url.h"
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("arena-load: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

/* One blocking (bounded) connect, so that a dead target fails fast and clearly. */
static int probe(const target_t *t, double timeout_s, char *why, size_t len)
{
    int fd = socket(t->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, len, "%s", strerror(errno));
        return -1;
    }
    int rc = connect(fd, (const struct sockaddr *)&t->addr, t->addrlen);
    if (rc < 0 && errno == EINPROGRESS) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int ms = (int)(timeout_s * 1000);
        rc = poll(&p, 1, ms > 0 ? ms : 1);
        if (rc == 0) {
            snprintf(why, len, "connect timed out after %.3gs", timeout_s);
            close(fd);
            return -1;
        }
        int err = 0;
        socklen_t el = sizeof err;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
        if (err) errno = err;
        rc = err ? -1 : 0;
    }
    if (rc < 0) snprintf(why, len, "%s", strerror(errno));
    close(fd);
    return rc;
}

static void check_cpus(const options_t *o)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) return;
    for (int i = 0; i < o->ncpus; i++)
        if (o->cpus[i] >= CPU_SETSIZE || !CPU_ISSET(o->cpus[i], &allowed))
            die(2, "CPU %d in --cpus is not available to this process", o->cpus[i]);
}

static void raise_fd_limit(int want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0) return;
    if (rl.rlim_cur >= (rlim_t)want) return;
    rl.rlim_cur = rl.rlim_max < (rlim_t)want ? rl.rlim_max : (rlim_t)want;
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < (rlim_t)want) die(2, "%d connections need more file descriptors than allowed (%llu)",
                                         want - 64, (unsigned long long)rl.rlim_cur);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--merge")) return merge_main(argc - 2, argv + 2, stdout);
    options_t o;
    char err[512];
    int rc = options_parse(&o, argc, argv, err, sizeof err);
    if (rc == OPTIONS_EXIT) return 0;
    if (rc == OPTIONS_ERROR) die(2, "%s", err);
    check_cpus(&o);

    target_t target;
    if (target_parse(&target, o.target, o.allow_remote, err, sizeof err) < 0) die(2, "%s", err);
    request_set reqs;
    if (requests_build(&reqs, &o, &target, err, sizeof err) < 0) die(2, "%s", err);
    if ((o.tls_resume || o.cacert || o.alpn) && !target.tls)
        die(2, "--tls-resume, --cacert and --alpn are for TLS: use an https:// target");
    transport_t transport;
    const transport_opts topts = {
        .tls = target.tls,
        .h2 = o.http2,
        .resume = o.tls_resume,
        .cacert = o.cacert,
        .alpn = o.alpn,
        .sni = target.host,
    };
    if (transport_setup(&transport, &topts, err, sizeof err) < 0) die(2, "%s", err);
    if (o.http2 && h2_requests_build(&reqs, target.tls ? "https" : "http") < 0)
        die(2, "a request cannot be sent over HTTP/2");
    if (o.json < 0) o.json = !isatty(STDOUT_FILENO);
    if (o.total && (uint64_t)o.threads > o.total) o.threads = (int)o.total;
    raise_fd_limit(o.connections + 64);

    signal(SIGPIPE, SIG_IGN);
    if (probe(&target, o.connect_timeout_s, err, sizeof err) < 0)
        die(1, "cannot connect to %s: %s", target.where, err);
    if (o.wait_go && wait_go(err, sizeof err) < 0) die(1, "%s", err);

    /* Workers inherit a mask with SIGINT/SIGTERM blocked; main takes them. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);

    run_t run;
    memset(&run, 0, sizeof run);
    run.o = &o;
    run.target = &target;
    run.reqs = &reqs;
    run.tp = &transport;
    run.timeout_ns = (uint64_t)(o.timeout_s * 1e9);
    run.connect_timeout_ns = (uint64_t)(o.connect_timeout_s * 1e9);
    run.t0 = now_ns();
    run.t_count = run.t0 + (uint64_t)(o.warmup_s * 1e9);
    run.t_end = o.duration_s > 0 ? run.t_count + (uint64_t)(o.duration_s * 1e9) : 0;
    atomic_init(&run.stop, 0);
    atomic_init(&run.stop_ns, 0);
    atomic_init(&run.running, o.threads);
    timeline_t timeline;
    if (timeline_init(&timeline, o.timeline_ms * 1000000ull, o.threads, o.histograms) < 0) die(1, "out of memory");
    run.tl = &timeline;

    worker_t *workers = calloc((size_t)o.threads, sizeof *workers);
    if (!workers) die(1, "out of memory");
    for (int i = 0; i < o.threads; i++) {
        worker_t *w = &workers[i];
        w->id = i;
        w->run = &run;
        w->nconns = o.connections / o.threads + (i < o.connections % o.threads);
        w->budget = o.total ? o.total / (uint64_t)o.threads + ((uint64_t)i < o.total % (uint64_t)o.threads) : 0;
        w->rate = o.rate / o.threads;
        w->cpu = o.ncpus ? o.cpus[i % o.ncpus] : -1;
        if (stats_init(&w->stats) < 0 || stats_init_requests(&w->stats, reqs.ngroups) < 0 ||
            stats_init_stages(&w->stats, (size_t)o.profile.n) < 0)
            die(1, "out of memory");
    }
    int started = 0;
    for (int i = 0; i < o.threads; i++) {
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0) {
            atomic_store(&run.stop, 2);
            atomic_fetch_sub(&run.running, o.threads - i);
            snprintf(err, sizeof err, "cannot start thread %d", i);
            break;
        }
        started++;
    }

    struct timespec tick = {0, 50 * 1000 * 1000};
    uint64_t stopped_at = 0;
    while (atomic_load(&run.running) > 0) {
        int sig = sigtimedwait(&sigs, NULL, &tick);
        if (sig == SIGINT || sig == SIGTERM) {
            int s = atomic_load(&run.stop);
            if (s == 0) {
                stopped_at = now_ns();
                atomic_store(&run.stop_ns, stopped_at);
            }
            /* A second signal abandons the wait for responses in flight. */
            atomic_store(&run.stop, s < 2 ? s + 1 : 2);
        }
    }
    for (int i = 0; i < started; i++) pthread_join(workers[i].thread, NULL);
    for (int i = 0; i < started; i++)
        if (workers[i].error[0]) die(1, "%s", workers[i].error);
    if (started < o.threads) die(1, "%s", err);

    stats_t total;
    if (stats_init(&total) < 0 || stats_init_requests(&total, reqs.ngroups) < 0 ||
        stats_init_stages(&total, (size_t)o.profile.n) < 0)
        die(1, "out of memory");
    uint64_t finish = 0;
    for (int i = 0; i < o.threads; i++) {
        stats_merge(&total, &workers[i].stats);
        if (workers[i].finish_ns > finish) finish = workers[i].finish_ns;
    }
    if (stopped_at && stopped_at < finish) finish = stopped_at;
    if (run.t_end && finish > run.t_end) finish = run.t_end;
    double duration = finish > run.t_count ? (double)(finish - run.t_count) / 1e9 : 0;

    timeline_finish(&timeline);
    /* Peak RSS from VmHWM: getrusage's ru_maxrss survives exec, so it would
     * report the parent's size when that was larger. */
    long hwm_kb = 0;
    FILE *status = fopen("/proc/self/status", "r");
    if (status) {
        char line[256];
        while (fgets(line, sizeof line, status))
            if (sscanf(line, "VmHWM: %ld kB", &hwm_kb) == 1) break;
        fclose(status);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    report_t r = {.o = &o, .target = &target, .rs = &reqs, .threads = o.threads, .duration_s = duration, .st = &total,
                  .tl = &timeline, .cpu_user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
                  .cpu_sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, .max_rss_kb = hwm_kb};
    if (o.json) report_json(stdout, &r);
    else report_human(stdout, &r);
    fflush(stdout);

    stats_free(&total);
    timeline_free(&timeline);
    for (int i = 0; i < o.threads; i++) stats_free(&workers[i].stats);
    free(workers);
    requests_free(&reqs);
    if (o.http2) h2_requests_free();
    transport_free(&transport);
    return 0;
}
