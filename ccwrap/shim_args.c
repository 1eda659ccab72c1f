/* Command-line classification, including @response files (gcc/libiberty quoting rules). */
#include "shim.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RSP_MAX_BYTES (4u * 1024u * 1024u)
#define RSP_MAX_DEPTH 8

/* Options whose value is the next argument (so that value is not an input). */
static const char *const TAKES_ARG[] = {
    "-o", "-x", "-MF", "-MT", "-MQ", "-MJ", "-I", "-include", "-imacros", "-isystem", "-iquote",
    "-idirafter", "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-isysroot", "-imultilib",
    "-iframework", "-ivfsoverlay", "-L", "-l", "-D", "-U", "-A", "-Xlinker", "-Xassembler",
    "-Xpreprocessor", "-Xclang", "-Xarch_host", "-aux-info", "-T", "-u", "-z", "--param", "-e",
    "-arch", "-target", "-dumpbase", "-dumpbase-ext", "-dumpdir", "-auxbase", "-auxbase-strip",
    "-wrapper", "-F", "-framework", "-install_name", "-B", "-G", "--sysroot", "-main-file-name",
    NULL};

static const char *const SOURCE_EXT[] = {
    ".c", ".i", ".ii", ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", ".m", ".mm", ".M",
    ".mi", ".mii", ".s", ".S", ".sx", ".cppm", ".ixx", ".cu", NULL};
static const char *const OTHER_INPUT_EXT[] = {".o", ".obj", ".a", ".so", ".lo", ".la", ".dylib",
                                              ".h", ".hh", ".hpp", ".hxx", ".H", ".gch", ".pch",
                                              NULL};

static int ext_in(const char *arg, const char *const *list) {
    const char *slash = strrchr(arg, '/');
    const char *dot = strrchr(slash ? slash : arg, '.');
    if (!dot || dot == arg || (slash && dot == slash + 1)) return 0;
    for (size_t i = 0; list[i]; i++)
        if (strcmp(dot, list[i]) == 0) return 1;
    return 0;
}

int has_source_ext(const char *arg) { return ext_in(arg, SOURCE_EXT); }

int has_input_ext(const char *arg) {
    if (ext_in(arg, SOURCE_EXT) || ext_in(arg, OTHER_INPUT_EXT)) return 1;
    return strstr(arg, ".so.") != NULL; /* versioned shared objects */
}

static int takes_arg(const char *a) {
    for (size_t i = 0; TAKES_ARG[i]; i++)
        if (strcmp(a, TAKES_ARG[i]) == 0) return 1;
    return 0;
}

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Query and preprocess-only commands: cmake and configure probe the compiler with these. */
static int is_passthrough_opt(const char *a) {
    static const char *const exact[] = {"-E", "-M", "-MM", "-v", "-###", "--version", "-version",
                                        "-dumpversion", "-dumpfullversion", "-dumpmachine",
                                        "-dumpspecs", "--help", "--target-help", "-qversion",
                                        "--verbose", NULL};
    for (size_t i = 0; exact[i]; i++)
        if (strcmp(a, exact[i]) == 0) return 1;
    return starts(a, "-print-") || starts(a, "--print-") || starts(a, "--help=");
}

static void scan_one(char *a, char *next, struct cmdinfo *info, int *skip, int depth);

/* Split a response file the way libiberty's buildargv does: whitespace separates,
 * quotes group, backslash escapes the next character. */
static void scan_rsp(const char *path, struct cmdinfo *info, int depth) {
    if (depth > RSP_MAX_DEPTH) return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0 || (size_t)st.st_size > RSP_MAX_BYTES) {
        close(fd);
        return;
    }
    size_t size = (size_t)st.st_size;
    char *text = malloc(size + 1);
    char *words = malloc(size + 1);
    if (!text || !words) {
        free(text);
        free(words);
        close(fd);
        return;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, text + got, size - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    text[got] = 0;
    /* Tokenise into `words` (NUL-separated), then scan the list. */
    size_t nw = 0, cap = 64;
    char **argv = malloc(cap * sizeof *argv);
    char *out = words;
    const char *p = text;
    while (argv) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') p++;
        if (!*p) break;
        char *word = out;
        char quote = 0;
        while (*p) {
            if (quote) {
                if (*p == '\\' && p[1]) {
                    *out++ = p[1];
                    p += 2;
                } else if (*p == quote) {
                    quote = 0;
                    p++;
                } else {
                    *out++ = *p++;
                }
            } else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' ||
                       *p == '\v') {
                break;
            } else if (*p == '\'' || *p == '"') {
                quote = *p++;
            } else if (*p == '\\' && p[1]) {
                *out++ = p[1];
                p += 2;
            } else {
                *out++ = *p++;
            }
        }
        *out++ = 0;
        if (nw + 1 >= cap) {
            char **bigger = realloc(argv, 2 * cap * sizeof *argv);
            if (!bigger) break;
            argv = bigger;
            cap *= 2;
        }
        argv[nw++] = word;
    }
    free(text);
    if (!argv) return; /* words stay allocated: sources may point into them */
    argv[nw] = NULL;
    int skip = 0;
    for (size_t i = 0; i < nw; i++) {
        if (skip) {
            skip = 0;
            continue;
        }
        scan_one(argv[i], argv[i + 1], info, &skip, depth);
    }
}

static void add_source(struct cmdinfo *info, char *a) {
    char **grown = realloc(info->sources, (info->nsources + 1) * sizeof *grown);
    if (!grown) return;
    info->sources = grown;
    info->sources[info->nsources++] = a;
}

static void scan_one(char *a, char *next, struct cmdinfo *info, int *skip, int depth) {
    if (a[0] == '@' && a[1]) {
        scan_rsp(a + 1, info, depth + 1);
        return;
    }
    if (a[0] != '-' || a[1] == 0) {
        if (has_source_ext(a)) add_source(info, a);
        return;
    }
    if (is_passthrough_opt(a)) info->passthrough = 1;
    if (strcmp(a, "-c") == 0 || strcmp(a, "-S") == 0 || strcmp(a, "-fsyntax-only") == 0)
        info->is_link = 0;
    if (strcmp(a, "-fdiagnostics-parseable-fixits") == 0) info->user_fixits = 1;
    if (strcmp(a, "-frecord-gcc-switches") == 0 || strcmp(a, "-grecord-command-line") == 0 ||
        strcmp(a, "-gcodeview-command-line") == 0)
        info->records_switches = 1;
    if (starts(a, "-fdiagnostics-format=")) info->diag_format = 1;
    if (strcmp(a, "-o") == 0) {
        info->output = next;
    } else if (a[1] == 'o' && a[2]) {
        info->output = a + 2;
    }
    if (takes_arg(a) && next) *skip = 1;
}

void args_scan(char **argv, int argc, struct cmdinfo *info) {
    memset(info, 0, sizeof *info);
    info->is_link = 1;
    int skip = 0;
    for (int i = 0; i < argc; i++) {
        if (skip) {
            skip = 0;
            continue;
        }
        scan_one(argv[i], i + 1 < argc ? argv[i + 1] : NULL, info, &skip, 0);
    }
}
