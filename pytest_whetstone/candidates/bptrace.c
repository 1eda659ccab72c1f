/* Which functions and lines a program runs, at close to its own speed: one-shot breakpoints
 * (x86-64 Linux).
 *
 *   bptrace ADDRS HITS -- PROGRAM [ARGS...]
 *
 * ADDRS holds hexadecimal code addresses as the program file names them (symbol values, line-table
 * addresses), one per line; after a line "@PATH", those of the shared library at PATH (its real
 * path, as /proc/PID/maps names it).  An int3 is written at each of the program's once it is loaded
 * (through /proc/PID/mem, one write per megabyte of code), at each of a library's when the program
 * reaches its entry point (the loader has mapped the libraries then).  The first time any process of
 * the run executes one, the original byte is put back, so each address costs one trap per process at
 * most and the program runs on unchanged after it.  The addresses hit are appended to HITS, in the
 * same form, when the program ends.  When a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT)
 * reaches the program itself (not a forked child: a death test's crash is expected), the frames of
 * the thread it hit go to HITS too, innermost first, each "!ADDR" (the program's) or "!ADDR PATH" (a
 * library's): the faulting instruction, then each return address less one, followed through the
 * frame-pointer chain while it climbs the stack (a -O0 build keeps it), or, when that chain names
 * none of the program's code (abort() inside the C library), the return addresses into the program
 * found on the stack, each just after a call instruction.
 * Threads, forks and vforks are followed (a fork has its own copy of the breakpoints); a process
 * that execs another program is let go.  PROGRAM's standard streams, cwd and environment are its
 * own; bptrace exits with its status (128 + the signal when a signal ended it) as soon as it ends:
 * a process it left running is killed then, as it is if the tracer is killed (PTRACE_O_EXITKILL).
 * With $BPTRACE_LIMIT_MS set, a program still running after that many milliseconds is killed, what
 * it hit until then is written as above, and bptrace exits with 124 (a test the fault made loop: the
 * functions it ran are the evidence, and the time limit of whoever runs bptrace would lose them).
 * Built by whetstone on first use.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#if !defined(__x86_64__) || !defined(__linux__)
#error "bptrace reads x86-64 Linux registers"
#endif

typedef struct {
    unsigned long addr; /* as the object's file names it */
    unsigned char orig;
} Bp;

/* The program itself (path NULL), or one of its shared libraries, armed once the loader has mapped it */
typedef struct {
    char *path;
    Bp *bps; /* sorted by address */
    size_t nbp, first; /* first: its breakpoints' place in the per-space and hit arrays */
    unsigned long base, lo, hi; /* load bias; where it is mapped, [lo, hi) */
    int armed;
} Obj;

typedef struct {
    pid_t pid;
    int space;   /* which address space (index into spaces); -1 until its parent's event names it */
    int pending; /* stopped before its parent's event: continued once the space is known */
} Tracee;

static Obj *objs;
static size_t nobjs, total;
static unsigned char **spaces; /* per address space: which breakpoints are already put back */
static size_t nspaces;
static unsigned char *hit;
static int hits_fd = -1;
static int root_mem = -1; /* /proc/ROOT/mem, kept open for writing the program's code */
static unsigned long entry;   /* the program's entry point: the libraries are armed when it is reached */
static unsigned char entry_orig;
static int entry_pending;
static Tracee *tracees;
static size_t ntracees, cap_tracees;
#define MAX_FRAMES 16
static unsigned long crash[MAX_FRAMES]; /* the first fatal signal's frames, as the process sees them */
static size_t ncrash;
static volatile sig_atomic_t expired; /* 1: $BPTRACE_LIMIT_MS has passed; 2: the program was killed for it */

static void expire(int sig) {
    (void)sig;
    if (!expired) expired = 1;
}

static int by_addr(const void *a, const void *b) {
    unsigned long x = ((const Bp *)a)->addr, y = ((const Bp *)b)->addr;
    return x < y ? -1 : x > y;
}

static long find_bp(const Obj *o, unsigned long file_addr) {
    size_t lo = 0, hi = o->nbp;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->bps[mid].addr < file_addr) lo = mid + 1;
        else hi = mid;
    }
    return lo < o->nbp && o->bps[lo].addr == file_addr ? (long)lo : -1;
}

static Tracee *tracee(pid_t pid, int create) {
    for (size_t i = 0; i < ntracees; i++)
        if (tracees[i].pid == pid) return &tracees[i];
    if (!create) return NULL;
    if (ntracees == cap_tracees) {
        cap_tracees = cap_tracees ? cap_tracees * 2 : 16;
        tracees = realloc(tracees, cap_tracees * sizeof *tracees);
        if (!tracees) exit(125);
    }
    tracees[ntracees] = (Tracee){pid, -1, 0};
    return &tracees[ntracees++];
}

static void forget(pid_t pid) {
    for (size_t i = 0; i < ntracees; i++)
        if (tracees[i].pid == pid) {
            tracees[i] = tracees[--ntracees];
            return;
        }
}

static int new_space(int copy_of) {
    spaces = realloc(spaces, (nspaces + 1) * sizeof *spaces);
    if (!spaces) exit(125);
    spaces[nspaces] = calloc(total ? total : 1, 1);
    if (!spaces[nspaces]) exit(125);
    if (copy_of >= 0) memcpy(spaces[nspaces], spaces[copy_of], total);
    return (int)nspaces++;
}

/* Where an object is loaded: its load bias (0 for a fixed-address executable, else where the mapping
 * of file offset 0 starts, less the first PT_LOAD's page), the span of its mappings and its entry
 * point as the file names it.  The program itself when path is NULL. */
static int locate(pid_t pid, const char *path, Obj *o, unsigned long *file_entry) {
    char exe[PATH_MAX], link[64];
    if (!path) {
        snprintf(link, sizeof link, "/proc/%d/exe", pid);
        ssize_t n = readlink(link, exe, sizeof exe - 1);
        if (n <= 0) return -1;
        exe[n] = 0;
        path = exe;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    Elf64_Ehdr eh;
    if (pread(fd, &eh, sizeof eh, 0) != sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        close(fd);
        return -1;
    }
    unsigned long first_load = ~0UL;
    for (int i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof ph, eh.e_phoff + (off_t)i * eh.e_phentsize) != sizeof ph) break;
        if (ph.p_type == PT_LOAD && ph.p_vaddr < first_load) first_load = ph.p_vaddr & ~0xfffUL;
    }
    close(fd);
    if (file_entry) *file_entry = eh.e_entry;
    char maps[64], line[PATH_MAX + 128];
    snprintf(maps, sizeof maps, "/proc/%d/maps", pid);
    FILE *fh = fopen(maps, "r");
    if (!fh) return -1;
    int found = -1;
    o->lo = ~0UL;
    o->hi = 0;
    while (fgets(line, sizeof line, fh)) {
        unsigned long start, end, offset;
        char perms[8], mapped[PATH_MAX];
        mapped[0] = 0;
        if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end, perms, &offset, mapped) < 5 ||
            strcmp(mapped, path) != 0)
            continue;
        if (start < o->lo) o->lo = start;
        if (end > o->hi) o->hi = end;
        if (offset == 0 && found != 0) {
            o->base = eh.e_type == ET_EXEC ? 0 : start - (first_load == ~0UL ? 0 : first_load);
            found = 0;
        }
    }
    fclose(fh);
    return found;
}

static int poke_byte(pid_t pid, unsigned long addr, unsigned char value, unsigned char *old) {
    errno = 0;
    long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)addr, NULL);
    if (errno) return -1;
    if (old) *old = (unsigned char)(word & 0xff);
    word = (word & ~0xffL) | value;
    return ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)word) == 0 ? 0 : -1;
}

/* Breakpoints i..j-1 of o (sorted, within SPAN bytes) written through /proc/PID/mem: one read and
 * one write for the lot, where word-sized peeks and pokes cost two system calls a breakpoint.  0 when
 * done; -1 leaves them to poke_byte (a gap between mappings, or a kernel that refuses the write). */
#define SPAN (1UL << 20)
static int arm_span(Obj *o, size_t i, size_t j) {
    unsigned long lo = o->bps[i].addr, len = o->bps[j - 1].addr - lo + 1;
    unsigned char *buf = root_mem >= 0 ? malloc(len) : NULL;
    if (!buf) return -1;
    int ok = pread(root_mem, buf, len, (off_t)(o->base + lo)) == (ssize_t)len;
    if (ok) {
        for (size_t k = i; k < j; k++) {
            o->bps[k].orig = buf[o->bps[k].addr - lo];
            buf[o->bps[k].addr - lo] = 0xcc;
        }
        ok = pwrite(root_mem, buf, len, (off_t)(o->base + lo)) == (ssize_t)len;
    }
    free(buf);
    return ok ? 0 : -1;
}

/* Arms the object in the stopped program; one that is not loaded (or cannot be written) keeps none */
static void arm(pid_t pid, Obj *o, unsigned long *file_entry) {
    size_t kept = 0;
    if (locate(pid, o->path, o, file_entry) != 0) {
        o->nbp = 0;
        return;
    }
    for (size_t i = 0, j; i < o->nbp; i = j) {
        for (j = i + 1; j < o->nbp && o->bps[j].addr - o->bps[i].addr < SPAN; j++)
            ;
        if (arm_span(o, i, j) == 0) {
            memmove(&o->bps[kept], &o->bps[i], (j - i) * sizeof *o->bps);
            kept += j - i;
            continue;
        }
        for (size_t k = i; k < j; k++) /* an address that cannot be written (not code) is dropped */
            if (poke_byte(pid, o->base + o->bps[k].addr, 0xcc, &o->bps[k].orig) == 0) o->bps[kept++] = o->bps[k];
    }
    o->nbp = kept;
    o->armed = 1;
}

static int read_addresses(const char *path) {
    FILE *fh = fopen(path, "r");
    if (!fh) return -1;
    char line[PATH_MAX + 16];
    size_t cap = 0;
    objs = calloc(1, sizeof *objs);
    if (!objs) return -1;
    nobjs = 1; /* the program itself */
    while (fgets(line, sizeof line, fh)) {
        line[strcspn(line, "\n")] = 0;
        Obj *o = &objs[nobjs - 1];
        if (line[0] == '@') { /* the addresses after this line are that shared library's */
            objs = realloc(objs, (nobjs + 1) * sizeof *objs);
            if (!objs) return -1;
            objs[nobjs] = (Obj){.path = strdup(line + 1)};
            nobjs++;
            cap = 0;
            continue;
        }
        char *end;
        unsigned long addr = strtoul(line, &end, 16);
        if (end == line) continue;
        if (o->nbp == cap) {
            cap = cap ? cap * 2 : 1024;
            o->bps = realloc(o->bps, cap * sizeof *o->bps);
            if (!o->bps) return -1;
        }
        o->bps[o->nbp++] = (Bp){addr, 0};
    }
    fclose(fh);
    for (size_t n = 0; n < nobjs; n++) {
        Obj *o = &objs[n];
        if (o->nbp) qsort(o->bps, o->nbp, sizeof *o->bps, by_addr);
        size_t uniq = 0; /* two symbols at one address (aliases) are one breakpoint */
        for (size_t i = 0; i < o->nbp; i++)
            if (uniq == 0 || o->bps[uniq - 1].addr != o->bps[i].addr) o->bps[uniq++] = o->bps[i];
        o->nbp = uniq;
        o->first = total;
        total += uniq;
    }
    hit = calloc(total ? total : 1, 1);
    return hit ? 0 : -1;
}

/* The program reached its entry point: the loader has mapped its libraries (and run their
 * constructors, which are not seen).  The entry's own byte goes back and the libraries are armed. */
static void on_entry(pid_t pid, struct user_regs_struct *regs) {
    if (pwrite(root_mem, &entry_orig, 1, (off_t)entry) != 1) poke_byte(pid, entry, entry_orig, NULL);
    entry_pending = 0;
    for (size_t n = 1; n < nobjs; n++) arm(pid, &objs[n], NULL);
    regs->rip = entry;
    ptrace(PTRACE_SETREGS, pid, NULL, regs);
    ptrace(PTRACE_CONT, pid, NULL, NULL);
}

static void on_trap(pid_t pid, Tracee *t) {
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0) {
        ptrace(PTRACE_CONT, pid, NULL, (void *)(long)SIGTRAP);
        return;
    }
    unsigned long at = regs.rip - 1;
    if (entry_pending && at == entry && t->space == 0) {
        on_entry(pid, &regs);
        return;
    }
    Obj *o = NULL;
    long i = -1;
    for (size_t n = 0; n < nobjs && i < 0; n++)
        if (objs[n].armed && at >= objs[n].lo && at < objs[n].hi) i = find_bp(o = &objs[n], at - objs[n].base);
    if (i < 0 || t->space < 0) { /* not ours: the program's own trap */
        ptrace(PTRACE_CONT, pid, NULL, (void *)(long)SIGTRAP);
        return;
    }
    size_t flat = o->first + (size_t)i;
    if (!spaces[t->space][flat]) { /* the first space is the program's own: one write through its memory file */
        if (t->space != 0 || root_mem < 0 || pwrite(root_mem, &o->bps[i].orig, 1, (off_t)at) != 1)
            poke_byte(pid, at, o->bps[i].orig, NULL);
        spaces[t->space][flat] = 1;
    }
    hit[flat] = 1; /* written out when the program ends: a system call a hit would double its cost */
    regs.rip = at;
    ptrace(PTRACE_SETREGS, pid, NULL, &regs);
    ptrace(PTRACE_CONT, pid, NULL, NULL);
}

/* The object an address of the program's own address space falls in, or NULL. */
static Obj *object_at(unsigned long at) {
    for (size_t n = 0; n < nobjs; n++)
        if (objs[n].armed && at >= objs[n].lo && at < objs[n].hi) return &objs[n];
    return NULL;
}

static int fatal(int sig) {
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT;
}

/* Whether the bytes before a return address are a call: `call rel32` (E8), or an indirect call
 * (FF /2) through a register or memory, 2, 3 or 6 bytes long. */
static int after_call(unsigned long ret) {
    unsigned char code[8];
    if (root_mem < 0 || pread(root_mem, code, sizeof code, (off_t)(ret - 8)) != (ssize_t)sizeof code) return 0;
    if (code[3] == 0xe8) return 1;
    for (int len = 2; len <= 6; len++) {
        unsigned char op = code[8 - len], modrm = code[8 - len + 1];
        if (op == 0xff && ((modrm >> 3) & 7) == 2) return 1;
    }
    return 0;
}

/* Without frame pointers to follow (the signal came from inside the C library, as abort() does),
 * the return addresses into the program's code among the stack's first 32 KB above the stack
 * pointer, each one after a call instruction, innermost first. */
static void scan_stack(unsigned long sp) {
    unsigned long words[512];
    for (unsigned long page = sp & ~4095UL; page < sp + (32UL << 10) && ncrash < MAX_FRAMES; page += 4096) {
        if (root_mem < 0 || pread(root_mem, words, sizeof words, (off_t)page) != (ssize_t)sizeof words) break;
        for (size_t w = 0; w < 512 && ncrash < MAX_FRAMES; w++) {
            unsigned long at = page + 8 * w, ret = words[w];
            if (at >= sp && object_at(ret - 1) && after_call(ret)) crash[ncrash++] = ret - 1;
        }
    }
}

/* The frames of the thread a fatal signal stopped: its instruction, then the return addresses the
 * frame pointers lead to, as long as each frame lies above the last one and within 64 MB of the
 * stack pointer (past that the register holds something else). */
static void on_crash(pid_t pid) {
    struct user_regs_struct regs;
    if (ncrash || ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0) return;
    crash[ncrash++] = regs.rip;
    unsigned long fp = regs.rbp, sp = regs.rsp;
    while (ncrash < MAX_FRAMES && fp >= sp && fp - regs.rsp < (64UL << 20) && !(fp & 7)) {
        errno = 0;
        unsigned long next = (unsigned long)ptrace(PTRACE_PEEKDATA, pid, (void *)fp, NULL);
        unsigned long ret = (unsigned long)ptrace(PTRACE_PEEKDATA, pid, (void *)(fp + 8), NULL);
        if (errno || !ret) break;
        crash[ncrash++] = ret - 1; /* inside the call that returns there */
        if (next <= fp) break;
        sp = fp;
        fp = next;
    }
    for (size_t f = 1; f < ncrash; f++)
        if (object_at(crash[f])) return;
    scan_stack(regs.rsp);
}

static void on_event(pid_t pid, Tracee *t, int event) {
    if (event == PTRACE_EVENT_EXEC) { /* another program now: none of our breakpoints are in it */
        ptrace(PTRACE_DETACH, pid, NULL, NULL);
        forget(pid);
        return;
    }
    unsigned long child = 0;
    if (ptrace(PTRACE_GETEVENTMSG, pid, NULL, &child) == 0 && child) {
        Tracee *c = tracee((pid_t)child, 1);
        t = tracee(pid, 0); /* the array may have moved */
        int parent_space = t ? t->space : 0;
        /* a thread, or a vfork child before its exec, shares the memory; a fork copies it */
        c->space = event == PTRACE_EVENT_FORK ? new_space(parent_space) : parent_space;
        if (c->pending) {
            c->pending = 0;
            ptrace(PTRACE_CONT, c->pid, NULL, NULL);
        }
    }
    ptrace(PTRACE_CONT, pid, NULL, NULL);
}

int main(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fprintf(stderr, "usage: bptrace ADDRS HITS -- PROGRAM [ARGS...]\n");
        return 125;
    }
    if (read_addresses(argv[1]) != 0) {
        fprintf(stderr, "bptrace: cannot read %s\n", argv[1]);
        return 125;
    }
    hits_fd = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (hits_fd < 0) {
        fprintf(stderr, "bptrace: cannot write %s\n", argv[2]);
        return 125;
    }
    pid_t root = fork();
    if (root < 0) return 125;
    if (root == 0) {
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) _exit(126);
        execvp(argv[4], argv + 4);
        _exit(127);
    }
    int status;
    if (waitpid(root, &status, 0) != root || !WIFSTOPPED(status)) /* the exec stop */
        return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
    ptrace(PTRACE_SETOPTIONS, root, NULL,
           (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
                          PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
    Tracee *first = tracee(root, 1);
    first->space = 0;
    char mem[64];
    snprintf(mem, sizeof mem, "/proc/%d/mem", root);
    root_mem = open(mem, O_RDWR | O_CLOEXEC);
    unsigned long file_entry = 0;
    arm(root, &objs[0], &file_entry);
    new_space(-1);
    if (nobjs > 1 && objs[0].armed) { /* libraries to arm: stop where the program starts */
        entry = objs[0].base + file_entry;
        long at = find_bp(&objs[0], file_entry);
        if (at >= 0) { /* a breakpoint already: the entry's trap puts its byte back for good */
            entry_orig = objs[0].bps[at].orig;
            spaces[0][objs[0].first + (size_t)at] = 1;
            entry_pending = 1;
        } else {
            entry_pending = poke_byte(root, entry, 0xcc, &entry_orig) == 0;
        }
    }
    const char *limit = getenv("BPTRACE_LIMIT_MS");
    if (limit && atol(limit) > 0) {
        struct sigaction on_alarm;
        memset(&on_alarm, 0, sizeof on_alarm);
        on_alarm.sa_handler = expire; /* no SA_RESTART: waitpid returns EINTR */
        sigaction(SIGALRM, &on_alarm, NULL);
        struct itimerval when = {{0, 0}, {atol(limit) / 1000, (atol(limit) % 1000) * 1000}};
        setitimer(ITIMER_REAL, &when, NULL);
    }
    ptrace(PTRACE_CONT, root, NULL, NULL);
    int root_status = 0;
    for (;;) {
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) {
            if (errno == EINTR) {
                if (expired == 1) { /* once: the root's death comes through waitpid like any end */
                    expired = 2;
                    kill(root, SIGKILL);
                }
                continue;
            }
            break; /* ECHILD: every traced process has ended */
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            if (pid == root) { /* what it left running (a daemon) dies with us: PTRACE_O_EXITKILL */
                root_status = status;
                break;
            }
            forget(pid);
            continue;
        }
        if (!WIFSTOPPED(status)) continue;
        int sig = WSTOPSIG(status), event = status >> 16;
        Tracee *t = tracee(pid, 1);
        if (sig == SIGTRAP && event) {
            on_event(pid, t, event);
        } else if (t->space < 0) { /* a new child, stopped before its parent's event named it */
            t->pending = 1;
        } else if (sig == SIGTRAP) {
            on_trap(pid, t);
        } else {
            if (fatal(sig) && t->space == 0) on_crash(pid);
            /* a new thread's first stop is SIGSTOP: not the program's; other signals are its own */
            ptrace(PTRACE_CONT, pid, NULL, (void *)(long)(sig == SIGSTOP ? 0 : sig));
        }
    }
    FILE *out = fdopen(hits_fd, "a");
    for (size_t n = 0; out && n < nobjs; n++) {
        int named = n == 0; /* a library's addresses follow its "@PATH" line, as in ADDRS */
        for (size_t i = 0; i < objs[n].nbp; i++) {
            if (!hit[objs[n].first + i]) continue;
            if (!named) named = fprintf(out, "@%s\n", objs[n].path) > 0;
            fprintf(out, "%lx\n", objs[n].bps[i].addr);
        }
    }
    for (size_t f = 0; out && f < ncrash; f++) {
        Obj *o = object_at(crash[f]);
        if (!o) continue; /* the C library's own frames (abort, raise): not the project's */
        if (o->path) fprintf(out, "!%lx %s\n", crash[f] - o->base, o->path);
        else fprintf(out, "!%lx\n", crash[f] - o->base);
    }
    if (out) fclose(out);
    if (expired) return 124;
    if (WIFSIGNALED(root_status)) return 128 + WTERMSIG(root_status);
    return WEXITSTATUS(root_status);
}
