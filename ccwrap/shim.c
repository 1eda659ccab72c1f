/* ccwrap: run the real compiler, relay its output byte for byte, spool diagnostics.
 *
 * Hot path for a compile that prints nothing: resolve the compiler on PATH, one
 * posix_spawn with stderr on a pipe, read EOF, wait, one stat of the TU marker, and
 * (only when a store exists) one small file naming the command for the compile database.
 * Everything else (the spool JSON, store creation) happens only when there is output.
 * Any failure of ccwrap's own work prints at most one warning line; the compiler's
 * output and exit status are never changed.
 */
#define _GNU_SOURCE
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

extern char **environ;

static const char *const LAUNCHERS[] = {"ccache", "sccache", "distcc", "icecc", "buildcache", NULL};

static volatile sig_atomic_t g_child = 0;
static volatile sig_atomic_t g_child_group = 0; /* the compiler leads a process group of its own */
static volatile sig_atomic_t g_forwarded = 0;
static struct stat g_self;
static int g_have_self = 0;
static int g_warned = 0;

static void warn_capture(const char *what, int err) {
    if (g_warned) return;
    g_warned = 1;
    char line[512];
    int n = snprintf(line, sizeof line, "ccwrap: warning: capture failed (%s%s%s); build output unaffected\n",
                     what, err ? ": " : "", err ? strerror(err) : "");
    if (n > 0) {
        ssize_t ignored = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)ignored;
    }
}

__attribute__((format(printf, 2, 3))) static void die(int code, const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ccwrap: error: %s\n", line);
    exit(code);
}

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int is_ccwrap_name(const char *name) {
    const char *b = base_name(name);
    return strcmp(b, "ccwrap") == 0 || strcmp(b, "ccwrap++") == 0;
}

static int in_list(const char *name, const char *const *list) {
    for (size_t i = 0; list[i]; i++)
        if (strcmp(name, list[i]) == 0) return 1;
    return 0;
}

/* True when path is this very program (same inode) or another ccwrap (by real name). */
static int is_ccwrap_file(const char *path) {
    struct stat st;
    if (g_have_self && stat(path, &st) == 0 && st.st_dev == g_self.st_dev && st.st_ino == g_self.st_ino)
        return 1;
    char *real = realpath(path, NULL);
    int hit = real && is_ccwrap_name(real);
    free(real);
    return hit;
}

static int executable_file(const char *path) {
    struct stat st;
    return access(path, X_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Find `name` like execvp would, skipping ccwrap itself (like ccache's find_executable). */
static char *find_program(const char *name, int *skipped_self) {
    if (strchr(name, '/')) return executable_file(name) ? strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    size_t nlen = strlen(name);
    const char *p = path;
    for (;;) {
        const char *end = strchr(p, ':');
        size_t dlen = end ? (size_t)(end - p) : strlen(p);
        char *cand = malloc(dlen + nlen + 3);
        if (!cand) return NULL;
        if (dlen == 0) {
            memcpy(cand, ".", 2);
            dlen = 1;
        } else {
            memcpy(cand, p, dlen);
        }
        cand[dlen] = '/';
        memcpy(cand + dlen + 1, name, nlen + 1);
        if (executable_file(cand)) {
            if (!is_ccwrap_file(cand)) return cand;
            if (skipped_self) *skipped_self = 1;
        }
        free(cand);
        if (!end) break;
        p = end + 1;
    }
    return NULL;
}

/* "x86_64-linux-gnu-gcc-12" -> "gcc"; "clang++-14" -> "clang++". */
static void norm_name(const char *path, char *out, size_t outsz) {
    snprintf(out, outsz, "%s", base_name(path));
    char *dash = strrchr(out, '-');
    if (dash && dash[1] && strspn(dash + 1, "0123456789.") == strlen(dash + 1)) *dash = 0;
    dash = strrchr(out, '-');
    if (dash) memmove(out, dash + 1, strlen(dash + 1) + 1);
}

/* "gcc", "clang", "cc" (gcc-compatible, unknown which) or "" (leave it alone). */
static const char *family_of(const char *word, const char *resolved) {
    char n[256];
    norm_name(word, n, sizeof n);
    if (!strcmp(n, "gcc") || !strcmp(n, "g++")) return "gcc";
    if (!strcmp(n, "clang") || !strcmp(n, "clang++")) return "clang";
    if (strcmp(n, "cc") && strcmp(n, "c++")) return "";
    char *found = resolved ? NULL : find_program(word, NULL);
    char *real = realpath(resolved ? resolved : found ? found : word, NULL);
    free(found);
    if (!real) return "cc";
    norm_name(real, n, sizeof n);
    free(real);
    if (!strcmp(n, "gcc") || !strcmp(n, "g++")) return "gcc";
    if (!strcmp(n, "clang") || !strcmp(n, "clang++")) return "clang";
    if (!strcmp(n, "cc") || !strcmp(n, "c++") || in_list(n, LAUNCHERS)) return "cc";
    return "";
}

static void on_signal(int sig) {
    g_forwarded = sig;
    /* to the compiler's own process group when it has one: cc1, cc1plus and as stop with the driver */
    if (g_child > 0) kill(g_child_group ? -(pid_t)g_child : (pid_t)g_child, sig);
}

static void on_sigpipe(int sig) { (void)sig; }

static void install_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
    /* A handler, not SIG_IGN, so the compiler still gets the default SIGPIPE after exec. */
    sa.sa_handler = on_sigpipe;
    sigaction(SIGPIPE, &sa, NULL);
}

/* ---------------------------------------------------------------- relay */

struct relay {
    int strip;            /* drop the fix-it lines we caused */
    int state;            /* 0 line start (deciding), 1 pass to EOL, 2 drop to EOL */
    char pend[256];       /* line-start bytes held while deciding */
    size_t npend;
    int out_ok;           /* our stderr still writable */
    char *cap;            /* everything the compiler printed, fix-its included */
    size_t cap_len, cap_size;
    size_t seen;          /* bytes the compiler printed, even if capture failed */
    int cap_failed, truncated;
};

static void emit(struct relay *r, const char *s, size_t n) {
    while (n && r->out_ok) {
        ssize_t w = write(2, s, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            r->out_ok = 0; /* EPIPE etc.: stop echoing, like a compiler that lost its stderr */
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

static void capture(struct relay *r, const char *s, size_t n) {
    if (r->cap_failed) return;
    if (r->cap_len + n > CCWRAP_MAX_CAPTURE) {
        n = CCWRAP_MAX_CAPTURE - r->cap_len;
        r->truncated = 1;
    }
    if (r->cap_len + n > r->cap_size) {
        size_t size = r->cap_size ? r->cap_size : 8192;
        while (size < r->cap_len + n) size *= 2;
        char *grown = realloc(r->cap, size);
        if (!grown) {
            r->cap_failed = 1;
            return;
        }
        r->cap = grown;
        r->cap_size = size;
    }
    memcpy(r->cap + r->cap_len, s, n);
    r->cap_len += n;
}

/* Length of the ANSI CSI prefix of pend that is complete; -1 if pend can no longer be
 * "(CSI)*fix-it:\"", 0..npend otherwise with *match set when the marker is complete. */
static int classify_pending(const struct relay *r, size_t *esc_len, int *match) {
    static const char marker[] = "fix-it:\"";
    size_t i = 0;
    *match = 0;
    while (i < r->npend && r->pend[i] == '\x1b') {
        size_t j = i + 1;
        if (j >= r->npend) return 0; /* undecided */
        if (r->pend[j] != '[') return -1;
        j++;
        while (j < r->npend && (unsigned char)r->pend[j] >= 0x20 && (unsigned char)r->pend[j] <= 0x3f) j++;
        if (j >= r->npend) return 0;
        if ((unsigned char)r->pend[j] < 0x40 || (unsigned char)r->pend[j] > 0x7e) return -1;
        i = j + 1;
    }
    *esc_len = i;
    size_t k = 0;
    while (i + k < r->npend && marker[k]) {
        if (r->pend[i + k] != marker[k]) return -1;
        k++;
    }
    if (!marker[k]) *match = 1;
    return 0;
}

static void relay_bytes(struct relay *r, const char *s, size_t n) {
    r->seen += n;
    capture(r, s, n);
    if (!r->strip) {
        emit(r, s, n);
        return;
    }
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (r->state == 1) {
            if (c == '\n') r->state = 0;
            continue;
        }
        if (r->state == 2) {
            if (c == '\n') {
                r->state = 0;
                start = i + 1;
            }
            continue;
        }
        /* state 0: deciding */
        if (i > start) emit(r, s + start, i - start);
        start = i;
        r->pend[r->npend++] = c;
        size_t esc_len = 0;
        int match = 0;
        int verdict = classify_pending(r, &esc_len, &match);
        if (match) {
            emit(r, r->pend, esc_len); /* clang's colour reset belongs to the line before */
            r->npend = 0;
            r->state = 2;
            start = i + 1;
        } else if (verdict < 0 || c == '\n' || r->npend == sizeof r->pend) {
            emit(r, r->pend, r->npend);
            r->npend = 0;
            r->state = c == '\n' ? 0 : 1;
            start = i + 1;
        } else {
            start = i + 1; /* held in pend */
        }
    }
    if (r->state != 2 && start < n) emit(r, s + start, n - start);
}

static void relay_finish(struct relay *r) {
    if (r->npend) emit(r, r->pend, r->npend);
    r->npend = 0;
}

/* Relay until EOF, or until the compiler itself has exited: a driver killed by a signal
 * can leave an orphaned cc1 holding the pipe, and plain make would not wait for it either. */
static void relay_loop(struct relay *r, int rfd, pid_t pid) {
    static char buf[65536];
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    struct pollfd fds[2] = {{.fd = rfd, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
    nfds_t nfds = pidfd >= 0 ? 2 : 1;
    int draining = 0;
    for (;;) {
        if (!draining && poll(fds, nfds, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (draining || (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(rfd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break; /* EOF, EAGAIN while draining, or EIO once the pty closed */
            relay_bytes(r, buf, (size_t)n);
            if (!r->out_ok) break;
        } else if (nfds == 2 && (fds[1].revents & POLLIN)) {
            fcntl(rfd, F_SETFL, fcntl(rfd, F_GETFL) | O_NONBLOCK); /* take what is there, then stop */
            draining = 1;
        }
    }
    if (pidfd >= 0) close(pidfd);
}

/* ---------------------------------------------------------------- spawning */

/* When our stderr is a terminal, give the compiler a pseudo-terminal so its own
 * colour/width/URL auto-detection behaves exactly as without ccwrap. */
static int open_pty(int *master, int *slave) {
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0) return -1;
    if (grantpt(m) != 0 || unlockpt(m) != 0) {
        close(m);
        return -1;
    }
    char *name = ptsname(m);
    int s = name ? open(name, O_RDWR | O_NOCTTY | O_CLOEXEC) : -1;
    if (s < 0) {
        close(m);
        return -1;
    }
    struct termios tio;
    if (tcgetattr(s, &tio) == 0) {
        cfmakeraw(&tio);
        tcsetattr(s, TCSANOW, &tio);
    }
    struct winsize ws;
    if (ioctl(2, TIOCGWINSZ, &ws) == 0) ioctl(s, TIOCSWINSZ, &ws);
    *master = m;
    *slave = s;
    return 0;
}

static void exec_direct(const char *path, char **argv) {
    execv(path, argv);
    int err = errno;
    die(err == ENOENT ? 127 : 126, "cannot run the compiler '%s': %s", path, strerror(err));
}

static void reraise(int sig) {
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    exit(128 + sig);
}

/* ---------------------------------------------------------------- spool */

static char *origin_for(const char *prefix, const char *path) {
    size_t n = strlen(prefix) + strlen(path) + 1;
    char *o = malloc(n);
    if (o) snprintf(o, n, "%s%s", prefix, path);
    return o;
}

/* The origins this command reports into (must match pytest_whetstone/spool.py). */
static size_t command_origins(const struct cmdinfo *info, char **abs_src, const char *abs_out,
                              const char *cwd, char **origins) {
    size_t n = 0;
    for (size_t i = 0; i < info->nsources; i++) origins[n++] = origin_for("tu:", abs_src[i]);
    if (info->nsources == 0 || (info->is_link && info->nsources > 1))
        origins[n++] = origin_for("link:", abs_out ? abs_out : cwd);
    return n;
}

/* The compile database's record of this command, best effort: a store that cannot take it
 * fails the spool write too, which says so in its one line. */
static void record_command(const char *store, char **run_args, int nrun, const char *compiler,
                           const char *family, const char *cwd, const struct cmdinfo *info, char **abs_src,
                           const char *abs_out, int exit_code) {
    if (!run_args || (info->nsources == 0 && !info->is_link)) return;
    struct command c = {
        .args = run_args, .nargs = (size_t)nrun, .compiler = compiler, .family = family, .cwd = cwd,
        .sources = abs_src, .nsources = info->nsources, .output = abs_out, .is_link = info->is_link,
        .exit_code = exit_code,
    };
    (void)command_write(store, &c);
}

static void after_compile(char **argv, int argc, char **run_args, int nrun, const char *compiler,
                          const char *family, const struct cmdinfo *info, struct relay *r, int exit_code,
                          int sig, int fixits_added) {
    char *cwd = getcwd(NULL, 0);
    if (!cwd) {
        if (r->cap_len || exit_code || sig) warn_capture("cannot read the working directory", errno);
        return;
    }
    char **abs_src = calloc(info->nsources + 1, sizeof *abs_src);
    char **origins = calloc(info->nsources + 2, sizeof *origins);
    char *abs_out = info->output && strcmp(info->output, "-") ? abs_normpath(cwd, info->output) : NULL;
    if (!abs_src || !origins) {
        warn_capture("out of memory", 0);
        return;
    }
    for (size_t i = 0; i < info->nsources; i++) {
        abs_src[i] = abs_normpath(cwd, info->sources[i]);
        if (!abs_src[i]) {
            warn_capture("out of memory", 0);
            return;
        }
    }
    size_t norigins = command_origins(info, abs_src, abs_out, cwd, origins);
    int printed = r->seen > 0 || exit_code != 0 || sig != 0;
    char *store = store_find(cwd, printed);
    if (!store) {
        if (printed) warn_capture("cannot locate the store", errno);
        return; /* clean compile and no store anywhere: nothing to supersede */
    }
    if (!sig) record_command(store, run_args, nrun, compiler, family, cwd, info, abs_src, abs_out, exit_code);
    int clean_marked = 0;
    if (!printed) {
        for (size_t i = 0; i < norigins; i++) {
            char *m = origins[i] ? marker_path(store, origins[i]) : NULL;
            struct stat st;
            if (m && stat(m, &st) == 0) clean_marked = 1;
            free(m);
        }
        if (!clean_marked) return;
    }
    if (r->cap_failed) warn_capture("out of memory while capturing", 0);
    int err = store_mkdirs(store);
    if (err) {
        warn_capture(store, err);
        return;
    }
    struct spool sp = {
        .argv = argv, .argc = argc, .compiler = compiler, .family = family, .cwd = cwd,
        .exit_code = exit_code, .signal = sig, .err = r->cap_failed ? "" : r->cap,
        .err_len = r->cap_failed ? 0 : r->cap_len, .truncated = r->truncated,
        .fixits_added = fixits_added, .clean = !printed, .sources = abs_src,
        .nsources = info->nsources, .output = abs_out, .is_link = info->is_link,
    };
    err = spool_write(store, &sp);
    if (err) {
        warn_capture("cannot write the spool file", err);
        return;
    }
    for (size_t i = 0; i < norigins; i++) {
        char *m = origins[i] ? marker_path(store, origins[i]) : NULL;
        if (!m) continue;
        if (printed) {
            int fd = open(m, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            if (fd >= 0) close(fd);
        } else {
            unlink(m);
        }
        free(m);
    }
}

/* ---------------------------------------------------------------- main */

/* Split the command into [launcher...] compiler args; returns the compiler word index. */
static int compiler_word(char **cmd, int nc) {
    int cw = 0;
    while (cw + 1 < nc && in_list(base_name(cmd[cw]), LAUNCHERS) && cmd[cw + 1][0] != '-') cw++;
    return cw;
}

static int looks_like_program(const char *arg) {
    if (arg[0] == '-' || arg[0] == '@' || has_input_ext(arg)) return 0;
    if (strchr(arg, '/')) return executable_file(arg);
    char *found = find_program(arg, NULL);
    free(found);
    return found != NULL;
}

int main(int argc, char **argv) {
    if (stat("/proc/self/exe", &g_self) == 0) g_have_self = 1;
    const char *self_name = base_name(argv[0]);
    int cxx = strstr(self_name, "++") != NULL;
    int masquerade = !is_ccwrap_name(argv[0]);
    const char *depth_env = getenv(CCWRAP_DEPTH_ENV);
    int depth = depth_env ? atoi(depth_env) : 0;
    if (depth >= 2)
        die(2, "recursive invocation: ccwrap is running itself (%d levels deep); set WHETSTONE_CC / "
               "WHETSTONE_CXX to the real compiler", depth);

    int ai = 1;
    while (ai < argc && is_ccwrap_name(argv[ai])) { /* `ccwrap ccwrap gcc` collapses */
        if (strstr(base_name(argv[ai]), "++")) cxx = 1;
        ai++;
    }
    char **cmd = calloc((size_t)argc + 40, sizeof *cmd);
    if (!cmd) die(2, "out of memory");
    int nc = 0;
    char envbuf[512];
    if (masquerade) {
        cmd[nc++] = (char *)self_name; /* a symlink named gcc -> ccwrap runs the next gcc on PATH */
    } else if (ai < argc && looks_like_program(argv[ai])) {
        cmd[nc++] = argv[ai++]; /* launcher form: ccwrap gcc ..., CMAKE_C_COMPILER_LAUNCHER */
    } else {
        const char *env = getenv(cxx ? "WHETSTONE_CXX" : "WHETSTONE_CC");
        snprintf(envbuf, sizeof envbuf, "%s", env && *env ? env : (cxx ? "c++" : "cc"));
        for (char *tok = strtok(envbuf, " \t"); tok && nc < 32; tok = strtok(NULL, " \t")) cmd[nc++] = tok;
        if (nc == 0) cmd[nc++] = cxx ? "c++" : "cc";
    }
    int skipped_self = 0;
    char *compiler = find_program(cmd[0], &skipped_self);
    if (!compiler && skipped_self)
        die(2, "recursive invocation: '%s' on PATH is ccwrap itself and no real compiler follows it; "
               "set WHETSTONE_CC / WHETSTONE_CXX to the real compiler", cmd[0]);
    if (!compiler)
        die(127, "cannot find the real compiler '%s'%s", cmd[0],
            strchr(cmd[0], '/') ? "" : " on PATH (set WHETSTONE_CC / WHETSTONE_CXX)");
    if (is_ccwrap_file(compiler))
        die(2, "recursive invocation: the compiler '%s' is ccwrap itself; set WHETSTONE_CC / "
               "WHETSTONE_CXX to the real compiler", compiler);
    for (int i = ai; i < argc; i++) cmd[nc++] = argv[i];
    cmd[nc] = NULL;
    int cw = compiler_word(cmd, nc);

    char depth_val[16];
    snprintf(depth_val, sizeof depth_val, "%d", depth + 1);
    setenv(CCWRAP_DEPTH_ENV, depth_val, 1);

    struct cmdinfo info;
    args_scan(cmd + cw + 1, nc - cw - 1, &info);
    /* Fix-its: gcc through its environment switch (a command-line flag would land in
     * DW_AT_producer and change -g objects), clang through the flag. */
    const char *family = family_of(cmd[cw], cw == 0 ? compiler : NULL);
    /* The compiler sees argv[0] exactly as the user wrote it (gcc -v prints it); only the
     * masquerade form, or a PATH with a ccwrap named like the compiler ahead of it, passes the
     * resolved path: gcc locates cc1 from argv[0] and must not find ccwrap's directory. */
    if (masquerade || skipped_self) cmd[0] = compiler;
    if (depth >= 1 || info.passthrough) exec_direct(compiler, cmd);

    /* The command as the user's build ran it, for the compile database (before ccwrap's own flag). */
    int nrun = nc - cw;
    char **run_args = malloc(((size_t)nrun + 1) * sizeof *run_args);
    if (run_args) memcpy(run_args, cmd + cw, ((size_t)nrun + 1) * sizeof *run_args);

    int fixits = 0;
    const char *user_env = getenv("GCC_EXTRA_DIAGNOSTIC_OUTPUT");
    if (*family && !info.user_fixits && !info.diag_format && !(user_env && *user_env)) {
        if (!strcmp(family, "clang")) {
            if (!info.records_switches) {
                memmove(cmd + cw + 2, cmd + cw + 1, (size_t)(nc - cw) * sizeof *cmd);
                cmd[cw + 1] = "-fdiagnostics-parseable-fixits";
                nc++;
                fixits = 1;
            }
        } else {
            setenv("GCC_EXTRA_DIAGNOSTIC_OUTPUT", "fixits-v1", 1);
            fixits = 1;
        }
        if (fixits) { /* keep ccache entries of ccwrap builds apart from plain ones */
            const char *ns = getenv("CCACHE_NAMESPACE");
            char nsbuf[256];
            snprintf(nsbuf, sizeof nsbuf, "%s%swhetstone-fixits", ns && *ns ? ns : "", ns && *ns ? "-" : "");
            setenv("CCACHE_NAMESPACE", nsbuf, 1);
        }
    }

    int rfd = -1, wfd = -1;
    int pfd[2];
    if (isatty(2) && open_pty(&rfd, &wfd) == 0) {
        /* the compiler sees a terminal, as it would without ccwrap */
    } else if (pipe2(pfd, O_CLOEXEC) == 0) {
        rfd = pfd[0];
        wfd = pfd[1];
    } else {
        warn_capture("cannot create a pipe", errno);
        exec_direct(compiler, cmd);
    }
    install_handlers();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, wfd, 2);
    /* The compiler gets a process group of its own, so a signal sent to ccwrap alone (`kill PID`)
     * reaches cc1/as too, not only the driver.  Not when stdin is a terminal: a background group
     * reading it would stop (SIGTTIN). */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    int own_group = !isatty(0);
    if (own_group) {
        posix_spawnattr_setpgroup(&attr, 0);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    }
    pid_t pid;
    int rc = posix_spawn(&pid, compiler, &fa, &attr, cmd, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) die(rc == ENOENT ? 127 : 126, "cannot run the compiler '%s': %s", compiler, strerror(rc));
    g_child_group = own_group;
    g_child = pid;
    if (g_forwarded) kill(own_group ? -pid : pid, g_forwarded);
    close(wfd);

    struct relay r;
    memset(&r, 0, sizeof r);
    r.strip = fixits;
    r.out_ok = 1;
    relay_loop(&r, rfd, pid);
    relay_finish(&r);
    close(rfd); /* if we lost our stderr, the compiler now gets SIGPIPE like it would have */

    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (!g_forwarded)
        after_compile(argv, argc, run_args, nrun, compiler, *family ? family : "unknown", &info, &r, exit_code, sig,
                      fixits);
    if (sig) reraise(sig);
    return exit_code;
}
