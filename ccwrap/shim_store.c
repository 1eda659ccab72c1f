/* The store side of the shim: discovery (same rules as pytest_whetstone.session.find_store),
 * TU markers for superseding, and the JSON spool file. */
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const ROOT_MARKERS[] = {"whetstone.json5", ".git", "pyproject.toml", "setup.py",
                                           "CMakeLists.txt", NULL};

static char *join(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    char *out = malloc(la + lb + 2);
    if (!out) return NULL;
    memcpy(out, a, la);
    size_t k = la;
    if (k == 0 || out[k - 1] != '/') out[k++] = '/';
    memcpy(out + k, b, lb + 1);
    return out;
}

/* Lexical normalisation like Python's os.path.normpath(os.path.join(cwd, path)). */
char *abs_normpath(const char *cwd, const char *path) {
    char *full = path[0] == '/' ? strdup(path) : join(cwd, path);
    if (!full) return NULL;
    size_t n = strlen(full);
    char *out = malloc(n + 2);
    if (!out) {
        free(full);
        return NULL;
    }
    size_t o = 0;
    const char *p = full;
    while (*p) {
        while (*p == '/') p++;
        if (!*p) break;
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 1 && p[0] == '.') {
            /* skip */
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            while (o > 0 && out[o - 1] != '/') o--;
            if (o > 0) o--; /* drop the slash too */
        } else {
            out[o++] = '/';
            memcpy(out + o, p, len);
            o += len;
        }
        p += len;
    }
    if (o == 0) out[o++] = '/';
    out[o] = 0;
    free(full);
    return out;
}

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Walk from `dir` up to /, calling test(dir/name) for each name; returns the directory hit. */
static char *walk_up(const char *start, const char *const *names) {
    char *dir = strdup(start);
    if (!dir) return NULL;
    for (;;) {
        for (size_t i = 0; names[i]; i++) {
            char *cand = join(dir, names[i]);
            if (!cand) {
                free(dir);
                return NULL;
            }
            int hit = names == ROOT_MARKERS ? exists(cand) : is_dir(cand);
            free(cand);
            if (hit) return dir;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || (slash == dir && dir[1] == 0)) break;
        if (slash == dir)
            dir[1] = 0;
        else
            *slash = 0;
    }
    free(dir);
    return NULL;
}

char *store_find(const char *cwd, int create) {
    const char *env = getenv("WHETSTONE_DIR");
    if (env && *env) {
        char *expanded = NULL;
        if (env[0] == '~' && (env[1] == '/' || env[1] == 0) && getenv("HOME"))
            expanded = join(getenv("HOME"), env[1] ? env + 2 : "");
        char *path = abs_normpath(cwd, expanded ? expanded : env);
        free(expanded);
        if (!path) return NULL;
        char *real = realpath(path, NULL);
        if (real) {
            free(path);
            return real;
        }
        return path;
    }
    static const char *const store_name[] = {".whetstone", NULL};
    char *dir = walk_up(cwd, store_name);
    if (dir) {
        char *store = join(dir, ".whetstone");
        free(dir);
        return store;
    }
    if (!create) return NULL;
    dir = walk_up(cwd, ROOT_MARKERS);
    char *store = join(dir ? dir : cwd, ".whetstone");
    free(dir);
    return store;
}

static int mkdir_p(const char *path) {
    if (is_dir(path)) return 0;
    char *copy = strdup(path);
    if (!copy) return ENOMEM;
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            int err = errno;
            free(copy);
            return err;
        }
        *p = '/';
    }
    int rc = (mkdir(copy, 0777) != 0 && errno != EEXIST) ? errno : 0;
    free(copy);
    return rc;
}

int store_mkdirs(const char *store) {
    char *tu = join(store, "spool/tu");
    if (!tu) return ENOMEM;
    int rc = mkdir_p(tu);
    free(tu);
    return rc;
}

unsigned long long fnv1a64(const char *s) {
    unsigned long long h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ULL;
    }
    return h;
}

char *marker_path(const char *store, const char *origin) {
    char name[40];
    snprintf(name, sizeof name, "spool/tu/%016llx", fnv1a64(origin));
    return join(store, name);
}

/* ------------------------------------------------------------------ JSON output */

struct out {
    int fd;
    int err;
    size_t used;
    char buf[16384];
};

/* A writer on a record's temporary file; without memory the file and both paths are let go. */
static struct out *out_open(int fd, char *final_path, char *tmp_path) {
    struct out *o = malloc(sizeof *o);
    if (!o) {
        close(fd);
        unlink(tmp_path);
        free(final_path);
        free(tmp_path);
        return NULL;
    }
    o->fd = fd;
    o->err = 0;
    o->used = 0;
    return o;
}

static void out_flush(struct out *o) {
    size_t off = 0;
    while (off < o->used && !o->err) {
        ssize_t n = write(o->fd, o->buf + off, o->used - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            o->err = errno;
        } else {
            off += (size_t)n;
        }
    }
    o->used = 0;
}

static void out_bytes(struct out *o, const char *s, size_t n) {
    while (n) {
        if (o->used == sizeof o->buf) out_flush(o);
        if (o->err) return;
        size_t take = sizeof o->buf - o->used;
        if (take > n) take = n;
        memcpy(o->buf + o->used, s, take);
        o->used += take;
        s += take;
        n -= take;
    }
}

static void out_str(struct out *o, const char *s) { out_bytes(o, s, strlen(s)); }

/* Length of the valid UTF-8 sequence at p (1..4), or 0 with *bad set to the maximal
 * invalid subpart to replace with one U+FFFD (the rule Python's "replace" follows). */
static size_t utf8_len(const unsigned char *p, size_t avail, size_t *bad) {
    unsigned char c = p[0];
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        *bad = 1;
        return 0;
    }
    size_t i = 1;
    for (; i < need; i++) {
        if (i >= avail) break;
        unsigned char lo_i = i == 1 ? lo : 0x80, hi_i = i == 1 ? hi : 0xBF;
        if (p[i] < lo_i || p[i] > hi_i) break;
    }
    if (i == need) return need;
    *bad = i;
    return 0;
}

static void out_json_string(struct out *o, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    out_bytes(o, "\"", 1);
    size_t i = 0, run = 0;
    while (i < n) {
        unsigned char c = p[i];
        size_t bad = 0, len = 1;
        int plain = c >= 0x20 && c != '"' && c != '\\' && c < 0x80;
        if (!plain && c >= 0x80) {
            len = utf8_len(p + i, n - i, &bad);
            plain = len > 0;
        }
        if (plain) {
            i += len;
            run += len;
            continue;
        }
        out_bytes(o, s + i - run, run);
        run = 0;
        if (bad) {
            out_str(o, "\\ufffd");
            i += bad;
            continue;
        }
        char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
        }
        out_str(o, esc);
        i += 1;
    }
    out_bytes(o, s + i - run, run);
    out_bytes(o, "\"", 1);
}

static void out_key_str(struct out *o, const char *key, const char *value) {
    out_str(o, ",\"");
    out_str(o, key);
    out_str(o, "\":");
    if (value)
        out_json_string(o, value, strlen(value));
    else
        out_str(o, "null");
}

static void out_key_int(struct out *o, const char *key, long long value) {
    char num[32];
    snprintf(num, sizeof num, ",\"%s\":%lld", key, value);
    out_str(o, num);
}

static void out_key_bool(struct out *o, const char *key, int value) {
    out_str(o, ",\"");
    out_str(o, key);
    out_str(o, value ? "\":true" : "\":false");
}

static void out_list(struct out *o, const char *key, char **items, size_t n) {
    out_str(o, ",\"");
    out_str(o, key);
    out_str(o, "\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) out_bytes(o, ",", 1);
        out_json_string(o, items[i], strlen(items[i]));
    }
    out_str(o, "]");
}

/* Opens <store>/<dir>/.tmp-<pid>-<rand>.json; fills final_path/tmp_path (malloc'd). */
static int open_record(const char *store, const char *dir, const char *final_name, char **final_path,
                       char **tmp_path, unsigned int rnd) {
    char name[200], tmpname[128];
    snprintf(name, sizeof name, "%s/%s", dir, final_name);
    snprintf(tmpname, sizeof tmpname, "%s/.tmp-%d-%08x.json", dir, (int)getpid(), rnd);
    *final_path = join(store, name);
    *tmp_path = join(store, tmpname);
    if (!*final_path || !*tmp_path) {
        free(*final_path);
        free(*tmp_path);
        return -ENOMEM;
    }
    int fd = open(*tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        int err = errno;
        free(*final_path);
        free(*tmp_path);
        return -err;
    }
    return fd;
}

/* Flushes, closes and renames into place; 0 or errno (the temp file is removed on error). */
static int close_record(struct out *o, char *final_path, char *tmp_path) {
    out_flush(o);
    int err = o->err;
    if (close(o->fd) != 0 && !err) err = errno;
    if (!err && rename(tmp_path, final_path) != 0) err = errno;
    if (err) unlink(tmp_path);
    free(final_path);
    free(tmp_path);
    return err;
}

static unsigned int random_tag(const struct timespec *ts) {
    unsigned int rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
        rnd = (unsigned int)(ts->tv_nsec ^ (getpid() << 16));
    return rnd;
}

static void iso_time(const struct timespec *ts, char *iso, size_t size) {
    struct tm tm;
    gmtime_r(&ts->tv_sec, &tm);
    strftime(iso, size, "%Y-%m-%dT%H:%M:%S", &tm);
    size_t ilen = strlen(iso);
    snprintf(iso + ilen, size - ilen, ".%03ld+00:00", ts->tv_nsec / 1000000);
}

int spool_write(const char *store, const struct spool *sp) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    unsigned int rnd = random_tag(&ts);
    char stamp[32], iso[48], name[128];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
    iso_time(&ts, iso, sizeof iso);
    snprintf(name, sizeof name, "%s.%06ldZ-%d-%08x.json", stamp, ts.tv_nsec / 1000, (int)getpid(), rnd);
    char *final_path, *tmp_path;
    int fd = open_record(store, "spool", name, &final_path, &tmp_path, rnd);
    if (fd < 0) return -fd;
    struct out *o = out_open(fd, final_path, tmp_path);
    if (!o) return ENOMEM;
    const char *session = getenv("WHETSTONE_SESSION");
    out_str(o, "{\"schema_version\":\"whetstone/1\",\"kind\":\"ccwrap\"");
    out_list(o, "argv", sp->argv, (size_t)sp->argc);
    out_key_str(o, "compiler", sp->compiler);
    out_key_str(o, "family", sp->family);
    out_key_str(o, "cwd", sp->cwd);
    out_key_int(o, "exit_code", sp->exit_code);
    out_key_int(o, "signal", sp->signal);
    out_str(o, ",\"stderr\":");
    out_json_string(o, sp->err ? sp->err : "", sp->err_len);
    out_key_str(o, "stdout", "");
    out_key_bool(o, "stderr_truncated", sp->truncated);
    out_key_bool(o, "fixits_added", sp->fixits_added);
    out_key_bool(o, "clean", sp->clean);
    out_list(o, "sources", sp->sources, sp->nsources);
    out_key_str(o, "output", sp->output);
    out_key_bool(o, "is_link", sp->is_link);
    out_key_str(o, "session", session ? session : "");
    out_key_str(o, "time", iso);
    out_key_int(o, "pid", (long long)getpid());
    out_str(o, "}\n");
    int err = close_record(o, final_path, tmp_path);
    free(o);
    return err;
}

/* The key that names one command's record: what it builds (output, sources, directory). */
static unsigned long long command_key(const struct command *c) {
    unsigned long long h = fnv1a64(c->cwd);
    const char *parts[2] = {"\n", c->output ? c->output : ""};
    for (int k = 0; k < 2; k++)
        for (const unsigned char *p = (const unsigned char *)parts[k]; *p; p++) h = (h ^ *p) * 0x100000001b3ULL;
    for (size_t i = 0; i < c->nsources; i++) {
        h = (h ^ '\n') * 0x100000001b3ULL;
        for (const unsigned char *p = (const unsigned char *)c->sources[i]; *p; p++) h = (h ^ *p) * 0x100000001b3ULL;
    }
    return h;
}

int command_write(const char *store, const struct command *c) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned int rnd = random_tag(&ts);
    char iso[48], name[40];
    iso_time(&ts, iso, sizeof iso);
    snprintf(name, sizeof name, "%016llx.json", command_key(c));
    char *final_path, *tmp_path;
    int fd = open_record(store, "commands", name, &final_path, &tmp_path, rnd);
    if (fd == -ENOENT) { /* first command recorded in this store */
        char *dir = join(store, "commands");
        if (!dir) return ENOMEM;
        int rc = mkdir_p(dir);
        free(dir);
        if (rc) return rc;
        fd = open_record(store, "commands", name, &final_path, &tmp_path, rnd);
    }
    if (fd < 0) return -fd;
    struct out *o = out_open(fd, final_path, tmp_path);
    if (!o) return ENOMEM;
    out_str(o, "{\"schema_version\":\"whetstone/1\",\"kind\":\"command\"");
    out_key_str(o, "directory", c->cwd);
    out_list(o, "arguments", c->args, c->nargs);
    out_key_str(o, "compiler", c->compiler);
    out_key_str(o, "family", c->family);
    out_list(o, "sources", c->sources, c->nsources);
    out_key_str(o, "output", c->output);
    out_key_bool(o, "is_link", c->is_link);
    out_key_int(o, "exit_code", c->exit_code);
    out_key_str(o, "time", iso);
    out_str(o, "}\n");
    int err = close_record(o, final_path, tmp_path);
    free(o);
    return err;
}
