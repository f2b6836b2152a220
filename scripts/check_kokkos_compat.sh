#!/usr/bin/env bash
# Builds dgatd against a Kokkos it does not build itself and runs its unit tests: Kokkos + Kokkos
# Kernels 4.5.1 as Debian sid ships them in trilinos 16.1 (Serial backend, shared libraries), the
# check behind the README's "Kokkos 3.4 to 5.x".
#
#   scripts/check_kokkos_compat.sh      download and unpack once into the cache, then configure and
#                                       build every target into build/kokkos-sid, run the unit tests
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
EXPECTED_KOKKOS=4.5.1
PREFIX="$CACHE_ROOT/kokkos-$EXPECTED_KOKKOS-sid"
BUILD_DIR=build/kokkos-sid
PACKAGES=(libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev)
RUNTIME_PACKAGES=(libc6 libstdc++6 libgcc-s1)

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

unpack_kokkos() {
  log "fetching Kokkos + Kokkos Kernels from Debian sid's trilinos into $PREFIX"
  sid_apt apt-get -q update >/dev/null
  local runtime
  runtime="$(runtime_packages "${PACKAGES[@]}")"
  [ -n "$runtime" ] || { echo "check_kokkos_compat.sh: sid's ${PACKAGES[*]} name no runtime library package" >&2; exit 1; }
  local download="$CACHE_ROOT/download-sid"
  rm -rf "$download" "$PREFIX"
  mkdir -p "$download" "$PREFIX"
  # shellcheck disable=SC2086
  (cd "$download" && sid_apt apt-get -q download "${PACKAGES[@]}" $runtime trilinos-dev >/dev/null)
  local deb
  for deb in "$download"/*.deb; do
    dpkg-deb -x "$deb" "$PREFIX"
    basename "$deb" >>"$PREFIX/packages.txt"
  done
  rm -rf "$download"
  mkdir -p "$download" "$PREFIX/runtime"
  (cd "$download" && sid_apt apt-get -q download "${RUNTIME_PACKAGES[@]}" >/dev/null)
  for deb in "$download"/*.deb; do
    dpkg-deb -x "$deb" "$PREFIX/runtime"
    basename "$deb" >>"$PREFIX/packages.txt"
  done
  rm -rf "$download"
  local found
  found="$(sed -n 's/^#define KOKKOS_VERSION \([0-9]*\)$/\1/p' "$PREFIX/usr/include/kokkos/KokkosCore_config.h")"
  if [ "$found" != "$(echo "$EXPECTED_KOKKOS" | awk -F. '{ print $1 * 10000 + $2 * 100 + $3 }')" ]; then
    echo "check_kokkos_compat.sh: Debian sid now ships Kokkos $found, not $EXPECTED_KOKKOS; update" \
      "EXPECTED_KOKKOS here and the README's list of checked versions" >&2
    exit 1
  fi
  # Trilinos' CMake files locate Kokkos relative to themselves, but point BLAS and LAPACK at the
  # development symlinks; the runtime libraries (installed with python3-numpy) are what linking needs.
  sed -i 's|/usr/lib/x86_64-linux-gnu/libblas.so"|/usr/lib/x86_64-linux-gnu/libblas.so.3"|' \
    "$PREFIX/usr/lib/x86_64-linux-gnu/cmake/trilinos_external_packages/BLAS/BLASConfig.cmake"
  sed -i 's|/usr/lib/x86_64-linux-gnu/liblapack.so"|/usr/lib/x86_64-linux-gnu/liblapack.so.3"|' \
    "$PREFIX/usr/lib/x86_64-linux-gnu/cmake/trilinos_external_packages/LAPACK/LAPACKConfig.cmake"
  touch "$PREFIX/.complete"
}

scripts/setup_dependencies.sh >/dev/null
[ -f "$PREFIX/.complete" ] || unpack_kokkos
log "Kokkos $EXPECTED_KOKKOS from $(tr '\n' ' ' <"$PREFIX/packages.txt")"

sid_lib="$PREFIX/usr/lib/x86_64-linux-gnu"
runtime_lib="$PREFIX/runtime/usr/lib/x86_64-linux-gnu"
# DT_RPATH (--disable-new-dtags), unlike DT_RUNPATH, also serves the libraries' own dependencies:
# libkokkoscore must find sid's libstdc++ too.
link_flags="-Wl,--allow-shlib-undefined -Wl,--dynamic-linker=$runtime_lib/ld-linux-x86-64.so.2"
link_flags+=" -Wl,--disable-new-dtags -Wl,-rpath,$runtime_lib:$sid_lib"
mkdir -p "$BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
  -DKokkos_ROOT="$PREFIX/usr" -DKokkosKernels_ROOT="$PREFIX/usr" \
  -DCMAKE_EXE_LINKER_FLAGS="$link_flags" >"$BUILD_DIR/configure.log" 2>&1 ||
  { tail -30 "$BUILD_DIR/configure.log"; exit 1; }
grep -E "^-- dgatd: " "$BUILD_DIR/configure.log"
cmake --build "$BUILD_DIR" -j "$(nproc)"
"$BUILD_DIR/dgatd" --version
ctest --test-dir "$BUILD_DIR" -L unit -j 1 --output-on-failure
log "Kokkos $EXPECTED_KOKKOS: every dgatd target compiled and linked, unit tests passed"
