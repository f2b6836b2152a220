#!/usr/bin/env bash
# Checks dgatd against Kokkos versions it does not build itself, as Debian sid ships them:
#  - Kokkos + Kokkos Kernels 4.5.1 from trilinos 16.1 (Serial backend, shared libraries): every
#    target configured; dgatd, the Python module, the benchmarks and the unit tests compiled at -O1
#    (the libraries in unity batches, as users build them) and linked into build/kokkos-sid, the
#    unit tests run;
#  - Kokkos 5.2.2 (libkokkos-dev; OpenMP backend, C++20), which Debian ships without a Kokkos
#    Kernels, so CMake cannot configure dgatd with it: every source that needs neither Kokkos
#    Kernels nor Kokkos::Serial is compiled against its headers (scripts/compile_against_kokkos.py),
#    one by one, with the compile commands of build/kokkos-sid-sources (configured, not built).
# This is the check behind docs/user/install.md's "Kokkos 3.4 to 5.x".
#
#   scripts/check_kokkos_compat.sh      (downloads and unpacks into the cache the first time)
#
# The .debs come through a private apt configuration for sid (own sources.list, lists and archives
# under the cache) and are unpacked with dpkg-deb -x: the system's sources and packages stay as they
# are. sid's libraries need glibc 2.38 and libstdc++ 13, newer than Debian 12's, so sid's C and C++
# runtime (libc6, libstdc++6, libgcc-s1) is unpacked beside them and the executables are linked to
# load through sid's dynamic loader, with sid's runtime and Kokkos first on their RPATH; everything
# else (HDF5, Gmsh, ...) is Debian 12's, which runs on the newer glibc. At link time only Debian 12's
# glibc is seen, so the libraries' references to newer runtime symbols are allowed to stay open
# (--allow-shlib-undefined); every symbol dgatd's own code needs must still resolve.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE_ROOT="${DGATD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dgatd}"
KOKKOS4=4.5.1
KOKKOS4_PREFIX="$CACHE_ROOT/kokkos-$KOKKOS4-sid"
KOKKOS4_PACKAGES=(libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev trilinos-dev)
RUNTIME_PACKAGES=(libc6 libstdc++6 libgcc-s1)
KOKKOS5=5.2.2
KOKKOS5_PREFIX="$CACHE_ROOT/kokkos-$KOKKOS5-sid"
BUILD_DIR=build/kokkos-sid
SOURCES_DIR=build/kokkos-sid-sources

log() { printf '[kokkos-compat] %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

SID_APT="$CACHE_ROOT/apt-sid"
sid_apt() {
  local tool="$1"
  shift
  mkdir -p "$SID_APT/lists/partial" "$SID_APT/archives/partial"
  [ -f "$SID_APT/sources.list" ] || echo "deb http://deb.debian.org/debian sid main" >"$SID_APT/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$SID_APT/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
    -o "Dir::State::Lists=$SID_APT/lists" -o "Dir::Cache::Archives=$SID_APT/archives")
  [ "$(id -u)" -eq 0 ] && opts+=(-o "APT::Sandbox::User=root")
  as_root "$tool" "${opts[@]}" "$@"
}

# The runtime library package each -dev package needs at the same version (libtrilinos-kokkos-16.1
# for libtrilinos-kokkos-dev), so the names follow sid when trilinos moves on.
runtime_packages() {
  local dev
  for dev in "$@"; do
    sid_apt apt-cache depends "$dev" | sed -n 's/^ *Depends: \(libtrilinos-[a-z-]*[0-9][0-9.]*\)$/\1/p'
  done
}

# Downloads PACKAGES from sid and unpacks them into DIR, recording their file names.
unpack_into() {
  local dir="$1"
  shift
  local download="$CACHE_ROOT/download-sid"
  rm -rf "$download"
  mkdir -p "$download" "$dir"
  (cd "$download" && sid_apt apt-get -q download "$@" >/dev/null)
  local deb
  for deb in "$download"/*.deb; do
    dpkg-deb -x "$deb" "$dir"
    basename "$deb" >>"$(dirname "$dir")/packages.txt"
  done
  rm -rf "$download"
}

# Stops unless the unpacked Kokkos is the version docs/user/install.md names.
require_version() {
  local prefix="$1" expected="$2" found
  found="$(sed -n 's/^#define KOKKOS_VERSION \([0-9]*\)$/\1/p' "$prefix/usr/include/kokkos/KokkosCore_config.h")"
  if [ "$found" != "$(echo "$expected" | awk -F. '{ print $1 * 10000 + $2 * 100 + $3 }')" ]; then
    echo "check_kokkos_compat.sh: Debian sid now ships Kokkos $found, not $expected; update the" \
      "version here and docs/user/install.md's table of checked versions" >&2
    exit 1
  fi
}

fetch_kokkos4() {
  log "fetching Kokkos + Kokkos Kernels $KOKKOS4 from Debian sid's trilinos into $KOKKOS4_PREFIX"
  sid_apt apt-get -q update >/dev/null
  local runtime
  runtime="$(runtime_packages libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev)"
  [ -n "$runtime" ] || { echo "check_kokkos_compat.sh: sid's ${KOKKOS4_PACKAGES[*]} name no library package" >&2; exit 1; }
  rm -rf "$KOKKOS4_PREFIX"
  mkdir -p "$KOKKOS4_PREFIX"
  # shellcheck disable=SC2086
  unpack_into "$KOKKOS4_PREFIX/root" "${KOKKOS4_PACKAGES[@]}" $runtime
  unpack_into "$KOKKOS4_PREFIX/runtime" "${RUNTIME_PACKAGES[@]}"
  require_version "$KOKKOS4_PREFIX/root" "$KOKKOS4"
  # Trilinos' CMake files locate Kokkos relative to themselves, but point BLAS and LAPACK at the
  # development symlinks; the runtime libraries (installed with python3-numpy) are what linking needs.
  local external="$KOKKOS4_PREFIX/root/usr/lib/x86_64-linux-gnu/cmake/trilinos_external_packages"
  sed -i 's|/usr/lib/x86_64-linux-gnu/libblas.so"|/usr/lib/x86_64-linux-gnu/libblas.so.3"|' "$external/BLAS/BLASConfig.cmake"
  sed -i 's|/usr/lib/x86_64-linux-gnu/liblapack.so"|/usr/lib/x86_64-linux-gnu/liblapack.so.3"|' "$external/LAPACK/LAPACKConfig.cmake"
  touch "$KOKKOS4_PREFIX/.complete"
}

fetch_kokkos5() {
  log "fetching Kokkos $KOKKOS5 headers from Debian sid's libkokkos-dev into $KOKKOS5_PREFIX"
  sid_apt apt-get -q update >/dev/null
  rm -rf "$KOKKOS5_PREFIX"
  mkdir -p "$KOKKOS5_PREFIX"
  unpack_into "$KOKKOS5_PREFIX/root" libkokkos-dev
  require_version "$KOKKOS5_PREFIX/root" "$KOKKOS5"
  touch "$KOKKOS5_PREFIX/.complete"
}

scripts/setup_dependencies.sh --tests >/dev/null
[ -f "$KOKKOS4_PREFIX/.complete" ] || fetch_kokkos4
[ -f "$KOKKOS5_PREFIX/.complete" ] || fetch_kokkos5

log "Kokkos $KOKKOS4 from $(tr '\n' ' ' <"$KOKKOS4_PREFIX/packages.txt")"
kokkos4_root="$KOKKOS4_PREFIX/root/usr"
runtime_lib="$KOKKOS4_PREFIX/runtime/usr/lib/x86_64-linux-gnu"
# DT_RPATH (--disable-new-dtags), unlike DT_RUNPATH, also serves the libraries' own dependencies:
# libkokkoscore must find sid's libstdc++ too.
link_flags="-Wl,--allow-shlib-undefined -Wl,--dynamic-linker=$runtime_lib/ld-linux-x86-64.so.2"
link_flags+=" -Wl,--disable-new-dtags -Wl,-rpath,$runtime_lib:$kokkos4_root/lib/x86_64-linux-gnu"
configure() {
  local dir="$1"
  shift
  mkdir -p "$dir"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release \
    -DKokkos_ROOT="$kokkos4_root" -DKokkosKernels_ROOT="$kokkos4_root" \
    -DCMAKE_EXE_LINKER_FLAGS="$link_flags" -DDGATD_HEADER_CHECK=OFF "$@" >"$dir/configure.log" 2>&1 ||
    { tail -30 "$dir/configure.log"; exit 1; }
}
# At -O1: this tree checks that dgatd compiles, links and passes its unit tests against Kokkos 4.5,
# which optimisation does not change, and -O1 halves its heaviest compiles (the Serial instances
# 132 s -> 66 s, the leapfrog's unit test 79 s -> 32 s, 2026-12-02). The main build keeps -O3 and
# the warnings only optimisation finds.
configure "$BUILD_DIR" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG"
grep -E "^-- dgatd: " "$BUILD_DIR/configure.log"
# What runs here: dgatd, the Python module, the benchmarks and the unit tests' executables (the host
# ones and the Serial ones; this Kokkos has no other backend). The regression cases, which run only
# in the main build, are compiled against Kokkos 3.4 there and 5.2 below: building them here too
# took about 150 s of compiling (a minute or more of CI) of a check that took 20 minutes.
other_targets="$(cmake --build "$BUILD_DIR" --target help | sed -n 's/^\(\.\.\. \)\{0,1\}\(dgatd_python\|bench_[a-z_]*\)\(: phony\)\{0,1\}$/\2/p' | tr '\n' ' ')"
# shellcheck disable=SC2086 # a target list
cmake --build "$BUILD_DIR" -j "$(nproc)" --target dgatd dgatd_unit_tests $other_targets
"$BUILD_DIR/dgatd" --version
ctest --test-dir "$BUILD_DIR" -L unit -j "$(nproc)" --output-on-failure
log "Kokkos $KOKKOS4: dgatd, the Python module, the benchmarks ($other_targets) and the unit tests compiled and linked, unit tests passed"

log "Kokkos $KOKKOS5 from $(tr '\n' ' ' <"$KOKKOS5_PREFIX/packages.txt")"
configure "$SOURCES_DIR" -DDGATD_UNITY_BUILD=OFF
python3 scripts/compile_against_kokkos.py "$SOURCES_DIR" "$KOKKOS5_PREFIX/root/usr/include/kokkos" \
  --std c++20 --flag=-fopenmp
log "Kokkos $KOKKOS5: every source but the skipped ones compiled as C++20"
