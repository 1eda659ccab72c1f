/* ccwrap native shim: shared declarations.
 *
 * The shim runs the real compiler, relays its stderr byte for byte (minus the
 * fix-it lines it asked for) and, only when the compiler printed something or
 * a translation unit that failed before now compiles cleanly, writes one JSON
 * spool file into the Whetstone store.  See docs/ccwrap.md.
 */
#ifndef CCWRAP_SHIM_H
#define CCWRAP_SHIM_H

#include <stddef.h>

#define CCWRAP_DEPTH_ENV "WHETSTONE_CCWRAP_DEPTH"
#define CCWRAP_MAX_CAPTURE (16u * 1024u * 1024u)

/* What the command line asks the compiler to do. */
struct cmdinfo {
    int passthrough;      /* -E, -M/-MM, --version, -v, -###, -dump*, -print-*, --help: exec directly */
    int user_fixits;      /* user passed -fdiagnostics-parseable-fixits themselves */
    int records_switches; /* -frecord-gcc-switches / -grecord-command-line: never touch argv */
    int diag_format;      /* -fdiagnostics-format=json|sarif: fix-it lines would not be text */
    int is_link;          /* no -c/-S/-E/-fsyntax-only: the driver links */
    const char *output;   /* -o value, or NULL */
    char **sources;       /* C-family / assembler inputs as written */
    size_t nsources;
};

/* shim_args.c */
void args_scan(char **argv, int argc, struct cmdinfo *info);
int has_source_ext(const char *arg);
int has_input_ext(const char *arg);

/* shim_store.c */
char *store_find(const char *cwd, int create); /* malloc'd store dir or NULL */
int store_mkdirs(const char *store);            /* 0 on success, errno otherwise */
char *abs_normpath(const char *cwd, const char *path);
char *marker_path(const char *store, const char *origin);
unsigned long long fnv1a64(const char *s);

struct spool {
    char **argv;
    int argc;
    const char *compiler;
    const char *family;
    const char *cwd;
    int exit_code;
    int signal;
    const char *err;
    size_t err_len;
    int truncated;
    int fixits_added;
    int clean;
    char **sources; /* absolute */
    size_t nsources;
    const char *output; /* absolute or NULL */
    int is_link;
};
/* Writes <store>/spool/<time>-<pid>-<rand>.json atomically; 0 or errno. */
int spool_write(const char *store, const struct spool *sp);

/* One command as the compiler ran it (launchers and ccwrap's own flag left out), recorded into
 * <store>/commands/<key>.json (one file per output/sources/directory; the newest wins). */
struct command {
    char **args; /* compiler word first */
    size_t nargs;
    const char *compiler;
    const char *family;
    const char *cwd;
    char **sources; /* absolute */
    size_t nsources;
    const char *output; /* absolute or NULL */
    int is_link;
    int exit_code;
};
int command_write(const char *store, const struct command *c);

#endif
