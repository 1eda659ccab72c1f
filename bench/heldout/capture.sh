#!/usr/bin/env bash
# Held-out corpus: real tools on real code bases this project was not developed against
# (PyPI sdists lz4 4.3.3, bitarray 2.9.2, mmh3 4.1.0, simplejson 3.19.3, pyahocorasick 2.1.0,
#   bash bench/heldout/capture.sh build|tests
set -u
OUT="$(cd "$(dirname "$0")" && pwd)"
SRC=/tmp/ho/src
PYI="$(python3 -c "import sysconfig;print(sysconfig.get_paths()['include'])")"
export LC_ALL=C.UTF-8
cap() { local name=$1; shift; mkdir -p "$OUT/$(dirname "$name")"; (cd "$SRC" && "$@") > "$OUT/$name.log" 2>&1; echo "$name: rc=$? $(wc -l < "$OUT/$name.log") lines"; }

build() {
  cd "$SRC" || exit 1
  cap build/gcc/werror_bitarray_util gcc -c -o /dev/null -Wall -Wextra -Werror -I"$PYI" bitarray-2.9.2/bitarray/_util.c
  cap build/gcc/c89_pedantic_mmh3 gcc -c -o /dev/null -std=c89 -pedantic-errors mmh3-4.1.0/src/mmh3/murmurhash3.c
  cap build/gcc/cxx_bitarray_util g++ -x c++ -c -o /dev/null -I"$PYI" bitarray-2.9.2/bitarray/_util.c
  cap build/gcc/cxx_speedups_maxerr g++ -x c++ -c -o /dev/null -I"$PYI" -fmax-errors=3 simplejson-3.19.3/simplejson/_speedups.c
  cap build/gcc/missing_python_h gcc -c -o /dev/null simplejson-3.19.3/simplejson/_speedups.c
  cap build/gcc/json_bitarray_util gcc -c -o /dev/null -fdiagnostics-format=json -Wall -Wextra -I"$PYI" bitarray-2.9.2/bitarray/_util.c
  cap build/clang/cxx_pyahocorasick clang++ -x c++ -c -o /dev/null -I"$PYI" -ferror-limit=8 pyahocorasick-2.1.0/src/pyahocorasick.c
  cap build/clang/missing_python_h clang -c -o /dev/null simplejson-3.19.3/simplejson/_speedups.c
  cap build/clang/weverything_murmur clang -c -o /dev/null -Weverything mmh3-4.1.0/src/mmh3/murmurhash3.c
  cap build/clang/werror_bitarray_util clang -c -o /dev/null -Wall -Wextra -Wconversion -Werror -I"$PYI" bitarray-2.9.2/bitarray/_util.c
  cap build/clang_tidy/murmur_missing_include clang-tidy mmh3-4.1.0/src/mmh3/murmurhash3.c --
  cap build/clang_tidy/murmur_checks clang-tidy '-checks=-*,bugprone-*,cert-*,readability-else-after-return' mmh3-4.1.0/src/mmh3/murmurhash3.c -- -I"$PYI"
  # make's built-in rules over lz4's library with strict flags
  cap build/make/lz4_strict make -k -C lz4-4.3.3/lz4libs CFLAGS="-Wall -Wextra -Wcast-qual -Wcast-align -Wshadow -Wstrict-prototypes -Wundef -Wpointer-arith -Wswitch-enum -Wdeclaration-after-statement -Werror -std=c89 -pedantic" lz4.o lz4hc.o lz4frame.o xxhash.o
  rm -f lz4-4.3.3/lz4libs/*.o
  # links: lz4frame needs lz4hc and xxhash, left out; lz4.o twice for duplicates
  mkdir -p /tmp/ho/obj
  for f in lz4 lz4frame lz4hc xxhash; do gcc -c -fPIC -O1 -o /tmp/ho/obj/$f.o lz4-4.3.3/lz4libs/$f.c; done
  cp /tmp/ho/obj/lz4.o /tmp/ho/obj/lz4copy.o
  for ld in bfd gold lld mold; do
    cap build/$ld/lz4_undefined gcc -shared -fuse-ld=$ld -Wl,--no-undefined -o /tmp/ho/obj/liblz4.so /tmp/ho/obj/lz4frame.o /tmp/ho/obj/lz4.o
    cap build/$ld/lz4_duplicate gcc -shared -fuse-ld=$ld -o /tmp/ho/obj/liblz4.so /tmp/ho/obj/lz4.o /tmp/ho/obj/lz4copy.o /tmp/ho/obj/xxhash.o
  done
}


tests() {
  # simplejson with two injected bugs (item separator, Infinity spelling), pure Python
  rm -rf "$SRC/sj" && cp -r "$SRC/simplejson-3.19.3" "$SRC/sj"
  sed -i "139s/item_separator = ', '/item_separator = ','/; s/text = 'Infinity'/text = 'Inf'/" "$SRC/sj/simplejson/encoder.py"
  local T="simplejson.tests.test_float simplejson.tests.test_indent simplejson.tests.test_tuple simplejson.tests.test_dump simplejson.tests.test_separators simplejson.tests.test_speedups"
  capdir() { local name=$1 dir=$2; shift 2; mkdir -p "$OUT/$(dirname "$name")"; (cd "$dir" && "$@") > "$OUT/$name.log" 2>&1; echo "$name: rc=$? $(wc -l < "$OUT/$name.log") lines"; }
  capdir tests/unittest/simplejson "$SRC/sj" python -m unittest $T
  capdir tests/unittest/simplejson_verbose "$SRC/sj" python -m unittest -v $T
  capdir tests/pytest/simplejson "$SRC/sj" python -m pytest -p no:cacheprovider simplejson/tests/test_float.py simplejson/tests/test_dump.py simplejson/tests/test_separators.py simplejson/tests/test_speedups.py
  capdir tests/pytest/simplejson_rA "$SRC/sj" python -m pytest -p no:cacheprovider -rA --tb=short simplejson/tests/test_dump.py simplejson/tests/test_speedups.py
  # a test module and a library module broken by a missing bracket (collection error, SyntaxError)
  sed '0,/assertEqual(/s/assertEqual(/assertEqual((/' "$SRC/sj/simplejson/tests/test_tuple.py" > "$SRC/sj/simplejson/tests/test_tuple_broken.py"
  sed '0,/ESCAPE = /s/ESCAPE = /ESCAPE = (/' "$SRC/sj/simplejson/encoder.py" > "$SRC/sj/simplejson/encoder_broken.py"
  capdir tests/pytest/simplejson_collect "$SRC/sj" python -m pytest -p no:cacheprovider --continue-on-collection-errors simplejson/tests/test_tuple_broken.py simplejson/tests/test_separators.py simplejson/tests/test_dump.py
  capdir tests/traceback/simplejson_syntax "$SRC/sj" python -c "import simplejson.encoder_broken"
  capdir tests/traceback/simplejson_script "$SRC/sj" python -c "import simplejson; simplejson.loads('{\"a\": [1, 2,]}')"
}

js() {
  # tests (bench/heldout/js/) of the npm library ms 2.1.3, some with wrong expectations;
  # tsc --checkJs over ms's own source. Scratch project: /tmp/ho/js (npm install ms mocha vitest typescript).
  local J=/tmp/ho/js
  mkdir -p "$J/test" && cp "$OUT"/js/*.js "$J/test/"
  capdir() { local name=$1 dir=$2; shift 2; mkdir -p "$OUT/$(dirname "$name")"; (cd "$dir" && "$@") > "$OUT/$name.log" 2>&1; echo "$name: rc=$? $(wc -l < "$OUT/$name.log") lines"; }
  capdir tests/node_spec/ms "$J" node --test --test-reporter=spec test/ms.node.test.js
  capdir tests/mocha/ms "$J" npx mocha test/ms.mocha.test.js
  capdir tests/vitest/ms "$J" npx vitest run test/ms.vitest.test.js
  capdir build/tsc/ms_checkjs "$J" npx tsc --strict --noEmit --allowJs --checkJs node_modules/ms/index.js
  capdir build/tsc/ms_checkjs_pretty "$J" npx tsc --strict --noEmit --allowJs --checkJs --pretty node_modules/ms/index.js
}

"${1:-build}"
