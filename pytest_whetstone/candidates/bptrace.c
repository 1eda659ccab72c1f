/* Which functions a program runs, at close to its own speed: one-shot breakpoints (x86-64 Linux).
 *
 *   bptrace ADDRS HITS -- PROGRAM [ARGS...]
 *
 * ADDRS holds hexadecimal addresses as the program file names them (symbol values), one per line.
 * An int3 is written at each once the program is loaded; the first time any process of the run
 * executes one, its address is appended to HITS ("%lx\n") and the original byte is put back, so
 * each address costs one trap per process at most and the program runs on unchanged after it.
 * Threads, forks and vforks are followed (a fork has its own copy of the breakpoints); a process
 * that execs another program is let go.  PROGRAM's standard streams, cwd and environment are its
 * own; bptrace exits with its status (128 + the signal when a signal ended it) as soon as it ends:
 * a process it left running is killed then, as it is if the tracer is killed (PTRACE_O_EXITKILL).
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
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#if !defined(__x86_64__) || !defined(__linux__)
#error "bptrace reads x86-64 Linux registers"
#endif

typedef struct {
    unsigned long addr; /* as the file names it */
    unsigned char orig;
} Bp;

typedef struct {
    pid_t pid;
    int space;   /* which address space (index into spaces); -1 until its parent's event names it */
    int pending; /* stopped before its parent's event: continued once the space is known */
} Tracee;

static Bp *bps;
static size_t nbp;
static unsigned long base;
static unsigned char **spaces; /* per address space: which breakpoints are already put back */
static size_t nspaces;
static unsigned char *hit;
static int hits_fd = -1;
static Tracee *tracees;
static size_t ntracees, cap_tracees;

static int by_addr(const void *a, const void *b) {
    unsigned long x = ((const Bp *)a)->addr, y = ((const Bp *)b)->addr;
    return x < y ? -1 : x > y;
}

static long find_bp(unsigned long file_addr) {
    size_t lo = 0, hi = nbp;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (bps[mid].addr < file_addr) lo = mid + 1;
        else hi = mid;
    }
    return lo < nbp && bps[lo].addr == file_addr ? (long)lo : -1;
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
    spaces[nspaces] = calloc(nbp ? nbp : 1, 1);
    if (!spaces[nspaces]) exit(125);
    if (copy_of >= 0) memcpy(spaces[nspaces], spaces[copy_of], nbp);
    return (int)nspaces++;
}

/* The load bias of the program's image: 0 for a fixed-address executable, else where the mapping
 * of file offset 0 starts, less the first PT_LOAD's page. */
static int load_bias(pid_t pid, unsigned long *out) {
    char exe[PATH_MAX], link[64];
    snprintf(link, sizeof link, "/proc/%d/exe", pid);
    ssize_t n = readlink(link, exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = 0;
    int fd = open(exe, O_RDONLY);
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
    if (eh.e_type == ET_EXEC) {
        *out = 0;
        return 0;
    }
    char maps[64], line[PATH_MAX + 128];
    snprintf(maps, sizeof maps, "/proc/%d/maps", pid);
    FILE *fh = fopen(maps, "r");
    if (!fh) return -1;
    int found = -1;
    while (fgets(line, sizeof line, fh)) {
        unsigned long start, end, offset;
        char perms[8], path[PATH_MAX];
        path[0] = 0;
        if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end, perms, &offset, path) >= 4 &&
            offset == 0 && strcmp(path, exe) == 0) {
            *out = start - (first_load == ~0UL ? 0 : first_load);
            found = 0;
            break;
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

static void arm(pid_t pid) {
    size_t kept = 0;
    if (load_bias(pid, &base) != 0) nbp = 0; /* the program runs untraced in effect */
    for (size_t i = 0; i < nbp; i++) /* an address that cannot be written (not code) is dropped */
        if (poke_byte(pid, base + bps[i].addr, 0xcc, &bps[i].orig) == 0) bps[kept++] = bps[i];
    nbp = kept;
    hit = calloc(nbp ? nbp : 1, 1);
    if (!hit) exit(125);
}

static int read_addresses(const char *path) {
    FILE *fh = fopen(path, "r");
    if (!fh) return -1;
    size_t cap = 1024;
    bps = malloc(cap * sizeof *bps);
    unsigned long addr;
    while (bps && fscanf(fh, "%lx", &addr) == 1) {
        if (nbp == cap) bps = realloc(bps, (cap *= 2) * sizeof *bps);
        if (bps) bps[nbp++] = (Bp){addr, 0};
    }
    fclose(fh);
    if (!bps) return -1;
    qsort(bps, nbp, sizeof *bps, by_addr);
    size_t uniq = 0; /* two symbols at one address (aliases) are one breakpoint */
    for (size_t i = 0; i < nbp; i++)
        if (uniq == 0 || bps[uniq - 1].addr != bps[i].addr) bps[uniq++] = bps[i];
    nbp = uniq;
    return 0;
}

static void on_trap(pid_t pid, Tracee *t) {
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0) {
        ptrace(PTRACE_CONT, pid, NULL, (void *)(long)SIGTRAP);
        return;
    }
    unsigned long at = regs.rip - 1;
    long i = at >= base ? find_bp(at - base) : -1;
    if (i < 0 || t->space < 0) { /* not ours: the program's own trap */
        ptrace(PTRACE_CONT, pid, NULL, (void *)(long)SIGTRAP);
        return;
    }
    if (!spaces[t->space][i]) {
        poke_byte(pid, at, bps[i].orig, NULL);
        spaces[t->space][i] = 1;
    }
    if (!hit[i]) {
        hit[i] = 1;
        dprintf(hits_fd, "%lx\n", bps[i].addr);
    }
    regs.rip = at;
    ptrace(PTRACE_SETREGS, pid, NULL, &regs);
    ptrace(PTRACE_CONT, pid, NULL, NULL);
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
    arm(root);
    new_space(-1);
    ptrace(PTRACE_CONT, root, NULL, NULL);
    int root_status = 0;
    for (;;) {
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) {
            if (errno == EINTR) continue;
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
            /* a new thread's first stop is SIGSTOP: not the program's; other signals are its own */
            ptrace(PTRACE_CONT, pid, NULL, (void *)(long)(sig == SIGSTOP ? 0 : sig));
        }
    }
    if (WIFSIGNALED(root_status)) return 128 + WTERMSIG(root_status);
    return WEXITSTATUS(root_status);
}
