#!/usr/bin/env bash
# Second held-out corpus of BUILD logs: real tools on code bases this project was never developed against.
#   bash bench/heldout2/build/capture.sh          # download, inject faults, capture every log
# Code bases: Debian bookworm zlib 1.2.13.dfsg and uthash 2.3.0 (upstream .orig tarballs),
# PyPI sdists Brotli 1.1.0, wrapt 1.16.0, multidict 6.0.5, editdistance 0.8.1,
# npm tiny-invariant 1.3.3 and fast-deep-equal 3.1.3 (typescript 5.6.3).
# Sources unpacked in /tmp/ho2/src (the cwd of most cases), objects in /tmp/ho2/obj,
# CMake projects in /tmp/ho2/cm/<case>, npm scratch project in /tmp/ho2/js.
# Every log: stdout and stderr through one pipe, LC_ALL=C.UTF-8, no colour except tsc --pretty.
set -u
OUT="$(cd "$(dirname "$0")" && pwd)"
HO=/tmp/ho2
SRC=$HO/src
OBJ=$HO/obj
CM=$HO/cm
JS=$HO/js
PYI="$(python3 -c "import sysconfig;print(sysconfig.get_paths()['include'])")"
export LC_ALL=C.UTF-8
Z=zlib-1.2.13.dfsg
U=uthash-2.3.0
E=editdistance-0.8.1/src/editdistance

# cap NAME DIR CMD...: run CMD in DIR, keep the exact bytes in $OUT/NAME.log
cap() { local name=$1 dir=$2; shift 2; mkdir -p "$OUT/$(dirname "$name")"
        (cd "$dir" && "$@") > "$OUT/$name.log" 2>&1; echo "$name: rc=$? $(wc -l < "$OUT/$name.log") lines"; }

fetch() {
  mkdir -p $HO/dl $SRC
  (cd $HO/dl && pip download --no-binary :all: --no-deps Brotli==1.1.0 wrapt==1.16.0 multidict==6.0.5 \
      editdistance==0.8.1 -d $HO/dl >/dev/null)
  python3 - <<'EOF'
import sys; sys.path.insert(0, "/work/main/bench")
from pathlib import Path
from debian_source import fetch_debian_source
w = Path("/tmp/ho2/deb")
for pkg, d in [("zlib", "zlib-1.2.13.dfsg"), ("uthash", "uthash-2.3.0")]:
    try:
        fetch_debian_source(pkg, d, w)
    except Exception as e:  # the mirror may lack Debian's own .debian.tar; the .orig tarball is enough
        print(pkg, "apt-get source said:", e)
EOF
  cd $SRC || exit 1
  for f in $HO/dl/*.tar.gz; do tar xzf "$f"; done
  tar xjf $HO/deb/debian/zlib_1.2.13.dfsg.orig.tar.bz2
  tar xzf $HO/deb/debian/uthash_2.3.0.orig.tar.gz
  mkdir -p $JS && cd $JS && { [ -f package.json ] || echo '{"name":"ho2js","version":"1.0.0","private":true}' > package.json; } \
    && npm install --no-audit --no-fund typescript@5.6.3 tiny-invariant@1.3.3 fast-deep-equal@3.1.3 >/dev/null
}

# Injected faults (each in a copy; the pristine trees stay as downloaded)
prep() {
  cd $SRC || exit 1
  # zlib-inj: crc32.c line 1066 (crc32_z) loses its ';', gzread.c line 152 misspells a member, gzlib.c frees state->msg twice
  rm -rf zlib-inj && cp -r $Z zlib-inj
  sed -i '1066s/return crc ^ 0xffffffff;/return crc ^ 0xffffffff/' zlib-inj/crc32.c
  sed -i '152s/state->x.have = 0;/state->x.hav = 0;/' zlib-inj/gzread.c
  sed -i '589s/            free(state->msg);/            free(state->msg);\n            free(state->msg);/' zlib-inj/gzlib.c
  # zlib-nr: gzclose.c deleted (make: No rule to make target); zlib-rt: example.c's first check inverted (test fails)
  rm -rf zlib-nr zlib-rt && cp -r $Z zlib-nr && cp -r $Z zlib-rt
  rm zlib-nr/gzclose.c
  sed -i '103s/if (strcmp((char\*)uncompr, hello)) {/if (!strcmp((char*)uncompr, hello)) {/' zlib-rt/test/example.c
  for d in zlib-inj zlib-nr zlib-rt; do (cd $d && ./configure --static >/dev/null); done
  # uthash-inj: test2.c undeclared 'tmpp' inside a macro argument; test5.c member 'cooky';
  # test1.c #warning/#error; test3.c '=' for '==', a dropped ';', '%s' for an int
  rm -rf uthash-inj && cp -r $U uthash-inj
  sed -i '29,31s/HASH_FIND_INT(users,&i,tmp);/HASH_FIND_INT(users,\&i,tmpp);/' uthash-inj/tests/test2.c
  sed -i '26s/HASH_ADD(alth,altusers,cookie,sizeof(int),user);/HASH_ADD(alth,altusers,cooky,sizeof(int),user);/' uthash-inj/tests/test5.c
  sed -i '3a #ifndef HASH_BLOOM\n#warning "uthash test1 built without HASH_BLOOM"\n#endif\n#if defined(HASH_FUNCTION) \&\& !defined(HASH_BLOOM)\n#error "test1 checks the bloom filter: build it with -DHASH_BLOOM=16"\n#endif' uthash-inj/tests/test1.c
  sed -i '19s/if (user == NULL) {/if (user = NULL) {/; 22s/user->id = i;/user->id = i/; 34s/printf("user id %d not found\\n", i);/printf("user id %s not found\\n", i);/' uthash-inj/tests/test3.c
  # editdistance-inj: ed_template.cpp (varr<N> replaced by a scalar: template errors),
  # ed_overload.cpp (min(long long, unsigned)), ed_check.cpp (a caller declaring the C API without extern "C")
  rm -rf editdistance-inj && mkdir editdistance-inj && cp $E/_editdistance.h $E/def.h editdistance-inj/
  sed 's/typedef map<int64_t, varr<N> > cmap_v;/typedef map<int64_t, uint64_t> cmap_v;/' $E/_editdistance.cpp > editdistance-inj/ed_template.cpp
  sed '73s/min(min(d\[(i-1)&1\]\[j\], d\[i&1\]\[j-1\]) + 1,/min(min(d[(i-1)\&1][j], d[i\&1][j-1]) + 1LL,/' $E/_editdistance.cpp > editdistance-inj/ed_overload.cpp
  cat > editdistance-inj/ed_check.cpp <<'EOF'
// ho2 injected fault: a caller that declares editdistance's C API itself, without extern "C"
#include <cstdint>
#include <vector>
unsigned int edit_distance(const int64_t *a, const unsigned int asize, const int64_t *b, const unsigned int bsize);
bool edit_distance_criterion(const int64_t *a, const unsigned int asize, const int64_t *b, const unsigned int bsize, const unsigned int thr);

unsigned int ed_check(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
    if (edit_distance_criterion(a.data(), a.size(), b.data(), b.size(), 2))
        return 0;
    return edit_distance(a.data(), a.size(), b.data(), b.size());
}
EOF
  # the recursive make: a top-level Makefile that builds zlib-inj's library through $(MAKE) -C
  printf 'all:\n\t$(MAKE) -C zlib-inj libz.a\n' > Makefile.ho2
  # objects for the link cases
  rm -rf $OBJ && mkdir -p $OBJ
  for f in adler32 crc32 zutil; do gcc -c -fPIC -O1 -o $OBJ/$f.o $Z/$f.c; done
  gcc -c -O1 -I$Z -o $OBJ/example.o $Z/test/example.c
  g++ -c -O1 -o $OBJ/ed_check.o editdistance-inj/ed_check.cpp
  g++ -c -O1 -o $OBJ/_editdistance.o $E/_editdistance.cpp
  # tsc: tiny-invariant's TypeScript source with two injected faults (a number for the prefix, message called with an argument)
  mkdir -p $JS/src
  sed "s/const prefix: string = 'Invariant failed';/const prefix: string = 404;/; s/typeof message === 'function' ? message() : message;/typeof message === 'function' ? message(prefix) : message;/" \
    $JS/node_modules/tiny-invariant/src/tiny-invariant.ts > $JS/src/tiny-invariant.ts
}

compilers() {
  # gcc 12
  cap gcc/brotli_wextra_werror $SRC gcc -c -o /dev/null -Wall -Wextra -Werror -I"$PYI" Brotli-1.1.0/python/_brotli.c
  cap gcc/zlib_werror_eq_multi $SRC gcc -fsyntax-only -Wall -Wextra -Werror=implicit-function-declaration $Z/gzwrite.c $Z/gzlib.c $Z/inflate.c
  cap gcc/editdistance_overload $SRC g++ -fsyntax-only editdistance-inj/ed_overload.cpp
  cap gcc/editdistance_template_maxerr $SRC g++ -fsyntax-only -fmax-errors=6 editdistance-inj/ed_template.cpp
  cap gcc/uthash_fatal_errors $SRC gcc -fsyntax-only -Wall -Wfatal-errors -Iuthash-inj/src uthash-inj/tests/test5.c
  cap gcc/uthash_directives $SRC gcc -fsyntax-only -Wall -Iuthash-inj/src uthash-inj/tests/test1.c uthash-inj/tests/test2.c
  cap gcc/multidict_cxx_pedantic $SRC g++ -x c++ -fsyntax-only -pedantic -fmax-errors=4 -I"$PYI" multidict-6.0.5/multidict/_multidict.c
  cap gcc/wrapt_missing_python_h $SRC gcc -c -o /dev/null wrapt-1.16.0/src/wrapt/_wrappers.c
  cap gcc/zlib_analyzer_double_free $SRC gcc -c -o /dev/null -fanalyzer zlib-inj/gzlib.c
  cap gcc_json/brotli_wextra $SRC gcc -c -o /dev/null -fdiagnostics-format=json -Wall -Wextra -I"$PYI" Brotli-1.1.0/python/_brotli.c
  cap gcc_json/editdistance_overload $SRC g++ -fsyntax-only -fdiagnostics-format=json editdistance-inj/ed_overload.cpp
  # clang 14
  cap clang/brotli_wextra_werror $SRC clang -c -o /dev/null -Wall -Wextra -Werror -I"$PYI" Brotli-1.1.0/python/_brotli.c
  cap clang/editdistance_overload $SRC clang++ -fsyntax-only editdistance-inj/ed_overload.cpp
  cap clang/editdistance_template $SRC clang++ -fsyntax-only -ferror-limit=4 editdistance-inj/ed_template.cpp
  cap clang/uthash_fixits $SRC clang -fsyntax-only -Wall -Iuthash-inj/src uthash-inj/tests/test3.c
  cap clang/uthash_two_files $SRC clang -fsyntax-only -Wall -Iuthash-inj/src uthash-inj/tests/test1.c uthash-inj/tests/test5.c
  cap clang/wrapt_missing_python_h $SRC clang -c -o /dev/null wrapt-1.16.0/src/wrapt/_wrappers.c
  # clang-tidy 14
  cap clang_tidy/zlib_gzwrite_checks $SRC clang-tidy '-checks=-*,bugprone-*,cert-*,readability-braces-around-statements' $Z/gzwrite.c -- -I$Z
  cap clang_tidy/uthash_analyzer $SRC clang-tidy '-checks=-*,clang-analyzer-*,bugprone-*,-bugprone-easily-swappable-parameters' uthash-inj/tests/test2.c -- -Iuthash-inj/src
  cap clang_tidy/wrapt_checks $SRC clang-tidy '-checks=-*,readability-*,-readability-identifier-length,-readability-magic-numbers' wrapt-1.16.0/src/wrapt/_wrappers.c -- -I"$PYI"
}

linkers() {
  for ld in bfd gold lld mold; do
    # C (zlib's example without libz) and C++ (a caller without extern "C": mangled names) undefined references
    cap $ld/undefined_c_cxx $SRC g++ -fuse-ld=$ld -o $OBJ/app $OBJ/example.o $OBJ/ed_check.o $OBJ/_editdistance.o
    # the same object twice and no main
    cap $ld/duplicate_no_main $SRC gcc -fuse-ld=$ld -o $OBJ/app $OBJ/adler32.o $OBJ/zutil.o $OBJ/adler32.o
    # a library that does not exist
    cap $ld/missing_lib $SRC gcc -fuse-ld=$ld -o $OBJ/app $OBJ/example.o -L$OBJ -lnotalib -lz
    # an object that was never built (the gcc driver hands it to the linker)
    cap $ld/missing_object $SRC gcc -fuse-ld=$ld -o $OBJ/app $OBJ/example.o $OBJ/minigzip.o $OBJ/adler32.o
  done
}

makes() {
  cd $SRC || exit 1
  (cd zlib-inj && make clean >/dev/null; cd ../zlib-nr && make clean >/dev/null; cd ../zlib-rt && make clean >/dev/null)
  rm -f uthash-inj/tests/test[0-9]
  cap make/uthash_keep_going $SRC make -k -C uthash-inj/tests test1 test2 test3 test4 test5 EXTRA_CFLAGS=-Wextra
  cap make/zlib_recursive $SRC make -k -f Makefile.ho2
  cap make/zlib_no_rule $SRC make -C zlib-nr libz.a
  cap make/zlib_test_failure $SRC/zlib-rt make teststatic
}

cmakes() {
  rm -rf $CM && mkdir -p $CM
  # Debian's dfsg tarball lacks win32/, so zlib's CMakeLists.txt fails at generate time as shipped (first case);
  # every other copy drops that one list entry (win32/zlib1.rc) before its own fault is injected.
  rm -rf "$CM/dfsg" && cp -r $SRC/$Z "$CM/dfsg"
  cap cmake/zlib_dfsg_generate $CM/dfsg cmake -S . -B build
  mk() { rm -rf "$CM/$1" && cp -r $SRC/$Z "$CM/$1" && sed -i '/win32\/zlib1.rc # If present/d' "$CM/$1/CMakeLists.txt"; }
  # configure errors and warnings on zlib's own CMakeLists.txt (cmake_minimum_required(VERSION 2.4.4): a real deprecation warning)
  mk find_package && sed -i '4a find_package(LibArchive REQUIRED)' $CM/find_package/CMakeLists.txt
  cap cmake/zlib_find_package $CM/find_package cmake -S . -B build
  cap cmake/no_source_dir $CM cmake -S $CM/zlib-nosuchdir -B $CM/nosuchdir-build
  mk parse_error && sed -i '6s/set(VERSION "1.2.13")/set(VERSION "1.2.13"/' $CM/parse_error/CMakeLists.txt
  cap cmake/zlib_parse_error $CM/parse_error cmake -S . -B build
  mk fatal && sed -i '6a if(NOT ZLIB_HO2_TARGET)\n  message(FATAL_ERROR "ZLIB_HO2_TARGET is not set:\\n  pass -DZLIB_HO2_TARGET=static or shared")\nendif()' $CM/fatal/CMakeLists.txt
  cap cmake/zlib_fatal_error $CM/fatal cmake -S . -B build
  mk warnings && sed -i '6a message(WARNING "zlib ${VERSION}: building the examples needs a writable TMPDIR")\nmessage(AUTHOR_WARNING "the amd64 assembler option is not maintained")' $CM/warnings/CMakeLists.txt
  cap cmake/zlib_warnings $CM/warnings cmake -S . -B build
  mk missing_source && sed -i '110s/    gzclose.c/    gzclose_ho2.c/' $CM/missing_source/CMakeLists.txt
  cap cmake/zlib_missing_source $CM/missing_source cmake -S . -B build
  # builds of zlib with zlib-inj's two compile errors (crc32.c, gzread.c)
  for g in makefiles ninja; do
    mk build_$g && cp $SRC/zlib-inj/crc32.c $SRC/zlib-inj/gzread.c $CM/build_$g/
  done
  (cd $CM/build_makefiles && cmake -S . -B build -G "Unix Makefiles" >/dev/null 2>&1)
  (cd $CM/build_ninja && cmake -S . -B build -G Ninja >/dev/null 2>&1)
  cap cmake/zlib_build_makefiles_k $CM/build_makefiles cmake --build build --target zlibstatic -- -k
  cap ninja/zlib_build_stopped $CM/build_ninja cmake --build build --target zlibstatic -j1
  cap ninja/zlib_build_keep_going $CM/build_ninja cmake --build build --target zlibstatic -j1 -- -k 0
}

tscs() {
  cap tsc/fast_deep_equal_checkjs $JS npx tsc --strict --noEmit --allowJs --checkJs node_modules/fast-deep-equal/index.js node_modules/fast-deep-equal/es6/index.js
  cap tsc/fast_deep_equal_checkjs_pretty $JS npx tsc --strict --noEmit --allowJs --checkJs --pretty node_modules/fast-deep-equal/index.js node_modules/fast-deep-equal/es6/index.js
  cap tsc/tiny_invariant_strict $JS npx tsc --strict --noEmit --target es2020 src/tiny-invariant.ts
}

if [ $# -eq 0 ]; then set -- fetch prep compilers linkers makes cmakes tscs; fi
for step in "$@"; do "$step"; done
