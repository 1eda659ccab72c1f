"""Lookup tables for build fixes: symbol -> header, symbol -> library, CMake package -> apt.

The tables cover the C standard library, the commonly used parts of the C++
standard library and POSIX.  Projects extend them in ``whetstone.json5``
(``headers``, ``libraries``); user entries win.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import Config


def _expand(table: dict[str, str]) -> dict[str, str]:
    """{header: "sym1 sym2 ..."} -> {sym: header}; the first header listed wins."""
    out: dict[str, str] = {}
    for header, names in table.items():
        for name in names.split():
            out.setdefault(name, header)
    return out


C_HEADERS = _expand(
    {
        "stdio.h": "printf fprintf sprintf snprintf vprintf vfprintf vsprintf vsnprintf scanf fscanf sscanf"
        " puts fputs gets fgets putchar fputc putc getchar fgetc getc ungetc fopen fclose fread fwrite"
        " fflush fseek ftell rewind fgetpos fsetpos feof ferror clearerr perror remove rename tmpfile"
        " tmpnam setvbuf setbuf FILE EOF stdin stdout stderr BUFSIZ SEEK_SET SEEK_CUR SEEK_END fileno"
        " popen pclose getline getdelim fdopen dprintf",
        "stdlib.h": "malloc calloc realloc free exit abort atexit at_quick_exit quick_exit _Exit atoi atol"
        " atoll atof strtol strtoul strtoll strtoull strtod strtof strtold rand srand qsort bsearch abs labs"
        " llabs div ldiv getenv setenv unsetenv system EXIT_SUCCESS EXIT_FAILURE RAND_MAX aligned_alloc"
        " mkstemp realpath posix_memalign putenv mbstowcs wcstombs",
        "string.h": "strlen strcpy strncpy strcat strncat strcmp strncmp strchr strrchr strstr strtok memcpy"
        " memmove memset memcmp memchr strerror strdup strndup strspn strcspn strpbrk strcoll strxfrm"
        " strnlen strtok_r strsignal stpcpy",
        "strings.h": "strcasecmp strncasecmp bzero bcopy",
        "math.h": "sqrt sqrtf sqrtl pow powf powl sin cos tan asin acos atan atan2 sinh cosh tanh exp expf"
        " exp2 log logf log2 log10 log1p expm1 fabs fabsf floor floorf ceil ceilf round roundf lround"
        " trunc fmod fmodf fmin fmax hypot cbrt isnan isinf isfinite NAN INFINITY HUGE_VAL M_PI M_E"
        " ldexp frexp modf nearbyint rint lrint erf erfc tgamma lgamma copysign signbit nan",
        "ctype.h": "isalpha isdigit isalnum isspace isupper islower isprint ispunct isxdigit iscntrl"
        " isgraph isblank toupper tolower",
        "assert.h": "assert static_assert",
        "errno.h": "errno EINVAL ENOMEM ENOENT EAGAIN EINTR ERANGE EEXIST EACCES EPERM EBADF",
        "time.h": "time clock difftime mktime strftime localtime gmtime asctime ctime clock_gettime"
        " nanosleep time_t clock_t CLOCKS_PER_SEC struct_tm timespec CLOCK_MONOTONIC CLOCK_REALTIME"
        " localtime_r gmtime_r",
        "stdint.h": "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t"
        " intmax_t uintmax_t INT8_MAX INT16_MAX INT32_MAX INT64_MAX UINT8_MAX UINT16_MAX UINT32_MAX"
        " UINT64_MAX SIZE_MAX INT32_MIN INT64_MIN",
        "inttypes.h": "PRId32 PRId64 PRIu32 PRIu64 PRIx32 PRIx64 PRIu8 PRId8 PRIuPTR SCNd32 SCNd64 strtoimax",
        "stdbool.h": "bool true false",
        "stddef.h": "size_t ptrdiff_t NULL offsetof max_align_t",
        "stdarg.h": "va_list va_start va_end va_arg va_copy",
        "limits.h": "INT_MAX INT_MIN UINT_MAX LONG_MAX LONG_MIN ULONG_MAX CHAR_BIT CHAR_MAX CHAR_MIN"
        " SHRT_MAX SHRT_MIN LLONG_MAX LLONG_MIN ULLONG_MAX PATH_MAX SCHAR_MAX UCHAR_MAX",
        "float.h": "FLT_MAX FLT_MIN DBL_MAX DBL_MIN FLT_EPSILON DBL_EPSILON LDBL_MAX",
        "signal.h": "signal raise SIGINT SIGTERM SIGKILL SIGSEGV SIGABRT SIGCHLD SIGPIPE SIGALRM SIGUSR1"
        " SIGUSR2 SIGHUP sigaction sigemptyset sigaddset sigprocmask kill sig_atomic_t",
        "setjmp.h": "setjmp longjmp jmp_buf",
        "locale.h": "setlocale localeconv LC_ALL LC_CTYPE",
        "wchar.h": "wchar_t wcslen wcscpy wcscmp wprintf fwprintf mbstate_t wint_t",
        "wctype.h": "iswalpha iswdigit iswspace towlower towupper",
        "complex.h": "creal cimag cabs carg conj",
        "threads.h": "thrd_create thrd_join mtx_lock mtx_unlock",
        "stdatomic.h": "atomic_int atomic_load atomic_store atomic_fetch_add",
        # POSIX
        "unistd.h": "read write close lseek fork execv execvp execve execl execlp pipe dup dup2 getpid"
        " getppid getuid geteuid getgid sleep usleep access unlink rmdir chdir getcwd isatty sysconf"
        " ftruncate fsync _exit optarg optind getopt STDIN_FILENO STDOUT_FILENO STDERR_FILENO link"
        " symlink readlink gethostname alarm pause ssize_t",
        "fcntl.h": "open openat creat fcntl O_RDONLY O_WRONLY O_RDWR O_CREAT O_TRUNC O_APPEND O_NONBLOCK"
        " O_CLOEXEC F_GETFL F_SETFL",
        "sys/stat.h": "stat fstat lstat mkdir chmod fchmod umask S_ISDIR S_ISREG mode_t",
        "sys/types.h": "pid_t off_t uid_t gid_t",
        "sys/wait.h": "wait waitpid WIFEXITED WEXITSTATUS WIFSIGNALED WTERMSIG WNOHANG",
        "sys/mman.h": "mmap munmap mprotect msync PROT_READ PROT_WRITE MAP_PRIVATE MAP_SHARED MAP_FAILED"
        " MAP_ANONYMOUS shm_open shm_unlink",
        "sys/time.h": "gettimeofday timeval setitimer",
        "sys/socket.h": "socket bind listen accept connect send recv sendto recvfrom setsockopt"
        " getsockopt shutdown AF_INET AF_INET6 AF_UNIX SOCK_STREAM SOCK_DGRAM socklen_t sockaddr",
        "netinet/in.h": "sockaddr_in sockaddr_in6 htons htonl ntohs ntohl INADDR_ANY IPPROTO_TCP",
        "arpa/inet.h": "inet_pton inet_ntop inet_addr inet_ntoa",
        "netdb.h": "getaddrinfo freeaddrinfo gai_strerror gethostbyname addrinfo",
        "poll.h": "poll pollfd POLLIN POLLOUT",
        "sys/select.h": "select FD_SET FD_ZERO FD_ISSET fd_set",
        "dirent.h": "opendir readdir closedir DIR dirent",
        "pthread.h": "pthread_create pthread_join pthread_detach pthread_self pthread_exit pthread_mutex_lock"
        " pthread_mutex_unlock pthread_mutex_init pthread_mutex_destroy pthread_cond_wait"
        " pthread_cond_signal pthread_cond_broadcast pthread_cond_init pthread_t pthread_mutex_t"
        " pthread_cond_t PTHREAD_MUTEX_INITIALIZER pthread_once pthread_key_create",
        "semaphore.h": "sem_init sem_wait sem_post sem_destroy sem_open sem_t",
        "dlfcn.h": "dlopen dlsym dlclose dlerror RTLD_LAZY RTLD_NOW",
        "libgen.h": "basename dirname",
        "glob.h": "glob globfree",
        "regex.h": "regcomp regexec regfree regex_t",
        "sched.h": "sched_yield",
        "termios.h": "tcgetattr tcsetattr termios",
        "sys/ioctl.h": "ioctl",
        "sys/resource.h": "getrlimit setrlimit getrusage",
        "sys/utsname.h": "uname",
        "pwd.h": "getpwnam getpwuid",
        "syslog.h": "syslog openlog closelog",
        "iconv.h": "iconv iconv_open iconv_close",
    }
)

CPP_HEADERS = _expand(
    {
        "iostream": "std::cout std::cerr std::cin std::clog std::endl cout cerr cin endl",
        "ostream": "std::ostream std::flush",
        "istream": "std::istream",
        "sstream": "std::stringstream std::ostringstream std::istringstream stringstream ostringstream"
        " istringstream",
        "fstream": "std::ifstream std::ofstream std::fstream ifstream ofstream",
        "iomanip": "std::setw std::setprecision std::setfill std::fixed std::hex",
        "string": "std::string std::to_string std::stoi std::stol std::stod std::getline std::wstring string",
        "string_view": "std::string_view",
        "vector": "std::vector vector",
        "array": "std::array",
        "list": "std::list",
        "deque": "std::deque",
        "forward_list": "std::forward_list",
        "map": "std::map std::multimap map",
        "set": "std::set std::multiset set",
        "unordered_map": "std::unordered_map unordered_map",
        "unordered_set": "std::unordered_set unordered_set",
        "queue": "std::queue std::priority_queue",
        "stack": "std::stack",
        "bitset": "std::bitset",
        "memory": "std::unique_ptr std::shared_ptr std::weak_ptr std::make_unique std::make_shared"
        " std::allocator std::addressof",
        "utility": "std::pair std::make_pair std::move std::forward std::swap std::exchange"
        " std::declval std::index_sequence",
        "tuple": "std::tuple std::make_tuple std::get std::tie std::apply",
        "optional": "std::optional std::nullopt std::make_optional",
        "variant": "std::variant std::visit std::holds_alternative std::get_if std::monostate",
        "any": "std::any std::any_cast",
        "functional": "std::function std::bind std::ref std::cref std::hash std::invoke std::less"
        " std::greater std::plus",
        "algorithm": "std::sort std::stable_sort std::find std::find_if std::count std::count_if"
        " std::min std::max std::minmax std::min_element std::max_element std::reverse std::copy"
        " std::copy_if std::transform std::for_each std::remove std::remove_if std::unique"
        " std::fill std::binary_search std::lower_bound std::upper_bound std::all_of std::any_of"
        " std::none_of std::equal std::clamp std::partition std::nth_element std::replace",
        "numeric": "std::accumulate std::iota std::inner_product std::partial_sum std::gcd std::lcm std::reduce",
        "iterator": "std::begin std::end std::distance std::advance std::next std::prev"
        " std::back_inserter std::inserter std::ostream_iterator",
        "cmath": "std::sqrt std::pow std::abs std::fabs std::floor std::ceil std::round std::sin std::cos"
        " std::log std::exp std::isnan std::isinf std::hypot std::fmod",
        "cstdlib": "std::exit std::abort std::malloc std::free std::atoi std::getenv std::rand std::size_t",
        "cstdio": "std::printf std::fprintf std::snprintf std::puts std::FILE",
        "cstring": "std::memcpy std::memset std::strlen std::strcmp std::strcpy",
        "cstdint": "std::int8_t std::int16_t std::int32_t std::int64_t std::uint8_t std::uint16_t"
        " std::uint32_t std::uint64_t std::uintptr_t",
        "cstddef": "std::byte std::nullptr_t std::ptrdiff_t",
        "cassert": "assert",
        "limits": "std::numeric_limits",
        "type_traits": "std::is_same std::enable_if std::decay std::remove_reference std::conditional"
        " std::is_integral std::is_same_v std::enable_if_t std::decay_t std::integral_constant",
        "stdexcept": "std::runtime_error std::logic_error std::invalid_argument std::out_of_range"
        " std::domain_error std::length_error std::overflow_error std::range_error",
        "exception": "std::exception std::terminate std::exception_ptr std::current_exception"
        " std::rethrow_exception",
        "new": "std::bad_alloc std::nothrow",
        "typeinfo": "std::bad_cast std::type_info",
        "thread": "std::thread std::this_thread",
        "mutex": "std::mutex std::lock_guard std::unique_lock std::scoped_lock std::recursive_mutex"
        " std::once_flag std::call_once",
        "shared_mutex": "std::shared_mutex std::shared_lock",
        "condition_variable": "std::condition_variable",
        "atomic": "std::atomic std::memory_order",
        "future": "std::future std::promise std::async std::packaged_task",
        "chrono": "std::chrono",
        "random": "std::mt19937 std::random_device std::uniform_int_distribution"
        " std::uniform_real_distribution std::normal_distribution std::default_random_engine",
        "regex": "std::regex std::regex_match std::regex_search std::smatch",
        "filesystem": "std::filesystem",
        "initializer_list": "std::initializer_list",
        "span": "std::span",
        "numbers": "std::numbers",
        "ranges": "std::ranges",
        "complex": "std::complex",
        "valarray": "std::valarray",
        "locale": "std::locale",
        "codecvt": "std::codecvt",
        "cctype": "std::isalpha std::isdigit std::isspace std::toupper std::tolower",
        "ctime": "std::time std::clock",
    }
)

# Symbols whose definitions live in a separate library on glibc systems.
LIBM = (
    "sqrt sqrtf sqrtl pow powf powl sin sinf cos cosf tan tanf asin acos atan atan2 atan2f sinh cosh"
    " tanh exp expf exp2 log logf log2 log10 log1p expm1 floor floorf ceil ceilf round roundf lround"
    " llround trunc truncf fmod fmodf fmin fmax hypot cbrt ldexp frexp modf nearbyint rint lrint"
    " erf erfc tgamma lgamma copysign nan fdim fma remainder"
).split()
LIBPTHREAD = (
    "pthread_create pthread_join pthread_detach pthread_cancel pthread_mutex_lock pthread_mutex_unlock"
    " pthread_cond_wait pthread_cond_signal pthread_barrier_init pthread_barrier_wait pthread_rwlock_rdlock"
    " pthread_rwlock_wrlock pthread_spin_lock sem_init sem_wait sem_post"
).split()
LIBDL = "dlopen dlsym dlclose dlerror dladdr dlvsym".split()
LIBRT = "shm_open shm_unlink clock_gettime timer_create timer_settime mq_open mq_send mq_receive aio_read".split()

SYMBOL_LIBRARIES: dict[str, str] = {}
for _lib, _names in (("m", LIBM), ("pthread", LIBPTHREAD), ("dl", LIBDL), ("rt", LIBRT)):
    for _name in _names:
        SYMBOL_LIBRARIES.setdefault(_name, _lib)

# find_package(<Name>) -> the Debian/Ubuntu package that provides it.
CMAKE_PACKAGES: dict[str, str] = {
    "ZLIB": "zlib1g-dev",
    "OpenSSL": "libssl-dev",
    "CURL": "libcurl4-openssl-dev",
    "Threads": "libc6-dev (Threads is part of the C library; check the compiler toolchain)",
    "Boost": "libboost-all-dev",
    "GTest": "libgtest-dev",
    "GMock": "libgmock-dev",
    "PNG": "libpng-dev",
    "JPEG": "libjpeg-dev",
    "TIFF": "libtiff-dev",
    "SQLite3": "libsqlite3-dev",
    "PkgConfig": "pkg-config",
    "BZip2": "libbz2-dev",
    "LibLZMA": "liblzma-dev",
    "zstd": "libzstd-dev",
    "LibXml2": "libxml2-dev",
    "EXPAT": "libexpat1-dev",
    "Freetype": "libfreetype-dev",
    "Fontconfig": "libfontconfig-dev",
    "OpenGL": "libgl-dev",
    "GLEW": "libglew-dev",
    "glfw3": "libglfw3-dev",
    "SDL2": "libsdl2-dev",
    "X11": "libx11-dev",
    "GTK3": "libgtk-3-dev",
    "Qt5": "qtbase5-dev",
    "Qt6": "qt6-base-dev",
    "Protobuf": "libprotobuf-dev protobuf-compiler",
    "gRPC": "libgrpc++-dev",
    "fmt": "libfmt-dev",
    "spdlog": "libspdlog-dev",
    "nlohmann_json": "nlohmann-json3-dev",
    "yaml-cpp": "libyaml-cpp-dev",
    "Eigen3": "libeigen3-dev",
    "benchmark": "libbenchmark-dev",
    "Catch2": "catch2",
    "LLVM": "llvm-dev",
    "Clang": "libclang-dev",
    "Python3": "python3-dev",
    "PythonLibs": "python3-dev",
    "BLAS": "libblas-dev",
    "LAPACK": "liblapack-dev",
    "OpenMP": "libomp-dev",
    "MPI": "libopenmpi-dev",
    "Iconv": "libc6-dev",
    "Intl": "gettext",
    "CUDAToolkit": "nvidia-cuda-toolkit",
    "Doxygen": "doxygen",
    "Git": "git",
    "FLEX": "flex",
    "BISON": "bison",
    "Lua": "liblua5.4-dev",
    "PostgreSQL": "libpq-dev",
    "LibArchive": "libarchive-dev",
    "Libevent": "libevent-dev",
    "libuv": "libuv1-dev",
    "Vulkan": "libvulkan-dev",
    "OpenCV": "libopencv-dev",
}
# pkg-config module names (pkg_check_modules) seen in "No package 'x' found".
PKGCONFIG_PACKAGES: dict[str, str] = {
    "zlib": "zlib1g-dev",
    "openssl": "libssl-dev",
    "libcurl": "libcurl4-openssl-dev",
    "libpng": "libpng-dev",
    "sqlite3": "libsqlite3-dev",
    "libxml-2.0": "libxml2-dev",
    "glib-2.0": "libglib2.0-dev",
    "gtk+-3.0": "libgtk-3-dev",
    "libffi": "libffi-dev",
    "uuid": "uuid-dev",
    "libsystemd": "libsystemd-dev",
    "x11": "libx11-dev",
}
_CMAKE_LOWER = {k.lower(): v for k, v in CMAKE_PACKAGES.items()}


def header_for(symbol: str, *, cpp: bool = False, config: Config | None = None) -> str | None:
    """`<stdio.h>` / `<vector>` / `"log.h"` for a symbol, or None."""
    if config is not None and symbol in config.headers:
        return _bracket(config.headers[symbol])
    if cpp:
        if symbol in CPP_HEADERS:
            return f"<{CPP_HEADERS[symbol]}>"
        bare = symbol[5:] if symbol.startswith("std::") else symbol
        if bare in C_HEADERS:
            c = C_HEADERS[bare]
            # Prefer <cstdio> for std::printf, the C header for an unqualified name.
            if symbol.startswith("std::") and "/" not in c:
                return f"<c{c[:-2]}>"
            return f"<{c}>"
        return None
    if symbol in C_HEADERS:
        return f"<{C_HEADERS[symbol]}>"
    return None


def _bracket(header: str) -> str:
    header = header.strip()
    if header.startswith(("<", '"')):
        return header
    return f"<{header}>"


def library_for(symbol: str, config: Config | None = None) -> str | None:
    """`m` for sqrt, `pthread` for pthread_create, config.libraries first; None if unknown."""
    if config is not None and symbol in config.libraries:
        return config.libraries[symbol].removeprefix("-l")
    return SYMBOL_LIBRARIES.get(symbol)


def apt_package_for(cmake_package: str) -> str | None:
    name = cmake_package.strip()
    return (
        CMAKE_PACKAGES.get(name)
        or _CMAKE_LOWER.get(name.lower())
        or PKGCONFIG_PACKAGES.get(name)
        or PKGCONFIG_PACKAGES.get(name.lower())
    )
