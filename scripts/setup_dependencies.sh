#!/usr/bin/env bash
# Installs what dgatd needs on Debian 12 and builds Kokkos + Kokkos Kernels 3.4.01 (from Debian's
# bookworm trilinos source package) into a cache outside the checkout, keyed by version, backend and,
# for CUDA, the GPU code compiled in.
#
#   scripts/setup_dependencies.sh            Debian packages + Kokkos/Kokkos Kernels (OpenMP, Serial)
#   scripts/setup_dependencies.sh --tests    also what the test suite needs (GoogleTest, Python with
#                                            numpy, h5py and matplotlib)
#   scripts/setup_dependencies.sh --cuda     also the tests' packages, CUDA 11.8 (Debian non-free) + g++-11 + Kokkos CUDA
#                                            (machine code for sm_80 and sm_90, PTX compute_90;
#                                            OpenMP host space, Serial)
#   scripts/setup_dependencies.sh --print-root openmp|cuda   print the install prefix and exit
#
# Idempotent: with the cache present and the packages installed it returns in seconds. Concurrent
# runs (several checkouts on one machine) wait for each other instead of building over each other.
set -euo pipefail

KOKKOS_VERSION=3.4.01
CACHE_ROOT="${DGATD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dgatd}"
JOBS="$(nproc)"
WITH_CUDA=0
WITH_TESTS=0

# Kokkos 3.4 aborts on a GPU whose compute capability major differs from the code that runs (PTX
# included), so the CUDA flavour carries machine code for each GPU generation it supports: Ampere
# (sm_80, also run by 8.6/8.7/8.9) and Hopper (sm_90). The compute_90 PTX is what a newer GPU would
# compile at start-up; Kokkos 3.4 refuses to run it there (dgatd says so in one line), Kokkos >= 4.0
# runs it. Kokkos 3.4 takes one architecture (-arch=sm_80); nvcc itself reads NVCC_APPEND_FLAGS,
# which adds the rest without tripping nvcc_wrapper's one-architecture check. The key names the
# code, and that its Kokkos Kernels instantiates only the sparse kernels for Cuda (below), so a
# cache built otherwise is never reused.
CUDA_APPEND_FLAGS="-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90"
CUDA_CACHE_KEY=cuda-sm80-sm90-sparse
# The host flavour's Kokkos Kernels holds the sparse component without instances (build_kokkos).
OPENMP_CACHE_KEY=openmp-sparse
prefix_for() {
  case "$1" in
    openmp) echo "$CACHE_ROOT/kokkos-$KOKKOS_VERSION-$OPENMP_CACHE_KEY" ;;
    cuda) echo "$CACHE_ROOT/kokkos-$KOKKOS_VERSION-$CUDA_CACHE_KEY" ;;
    *) echo "setup_dependencies.sh: unknown backend '$1' (openmp or cuda)" >&2; return 2 ;;
  esac
}

while [ $# -gt 0 ]; do
  case "$1" in
    --print-root) prefix_for "${2:-openmp}" || exit 2; exit 0 ;;
    # The CUDA build compiles the test executables too.
    --cuda) WITH_CUDA=1 WITH_TESTS=1 ;;
    --tests) WITH_TESTS=1 ;;
    *) echo "setup_dependencies.sh: unknown option '$1' (use --tests, --cuda or --print-root BACKEND)" >&2; exit 2 ;;
  esac
  shift
done

log() { printf '[setup] %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# A private apt configuration: bookworm main/contrib/non-free binaries and main sources, with its
# own package lists, so the system's sources stay untouched.
APT_DIR="$CACHE_ROOT/apt"
private_apt() {
  mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/archives/partial"
  if [ ! -f "$APT_DIR/sources.list" ]; then
    cat >"$APT_DIR/sources.list" <<LIST
deb http://deb.debian.org/debian bookworm main contrib non-free non-free-firmware
deb http://deb.debian.org/debian bookworm-updates main contrib non-free non-free-firmware
deb http://deb.debian.org/debian-security bookworm-security main contrib non-free non-free-firmware
deb-src http://deb.debian.org/debian bookworm main
LIST
  fi
  local opts=(-o "Dir::Etc::SourceList=$APT_DIR/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
    -o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache::Archives=$APT_DIR/archives"
    -o "DPkg::Lock::Timeout=1200")
  # The private directories belong to root, so apt's unprivileged download user cannot write them.
  [ "$(id -u)" -eq 0 ] && opts+=(-o "APT::Sandbox::User=root")
  [ "$1" = update ] || private_apt_lists
  as_root env DEBIAN_FRONTEND=noninteractive apt-get "${opts[@]}" "$@"
}
# The private package lists, fetched once (private_apt fetches them on first use).
private_apt_lists() {
  if [ -z "$(ls "$APT_DIR/lists" 2>/dev/null | grep -v partial || true)" ]; then private_apt update -q >/dev/null; fi
}

# What building dgatd and running it need (README command 1: its spectrum plot is dgatd's own SVG),
# with the Python package (pybind11, numpy); the tests add theirs (--tests): pytest, and h5py and
# matplotlib for the scripts and the PNG plots of spectrum, sparams and farfield.
DEB_PACKAGES=(build-essential cmake ninja-build pkg-config dpkg-dev libgmsh-dev gmsh libhdf5-dev
  libfftw3-dev libcli11-dev libtoml11-dev libfmt-dev libmetis-dev libopenmpi-dev openmpi-bin
  python3-dev pybind11-dev python3-numpy)
TEST_PACKAGES=(libgtest-dev python3-pytest python3-h5py python3-matplotlib)
CUDA_PACKAGES=(nvidia-cuda-toolkit g++-11)

missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
  done
}

install_packages() {
  local missing
  missing="$(missing_packages "$@")"
  [ -z "$missing" ] && return 0
  log "installing Debian packages: $(echo $missing)"
  # shellcheck disable=SC2086
  # Without an fsync per unpacked file (as Debian's container images do): a third of the install.
  private_apt install -y -q --no-install-recommends -o Dpkg::Options::=--force-unsafe-io $missing >/dev/null
  private_apt clean
}

fetch_kokkos_sources() {
  local src="$CACHE_ROOT/src/kokkos-$KOKKOS_VERSION"
  # The download may already run in the background (below) or in another checkout: one at a time.
  local fetch_lock
  exec {fetch_lock}>"$CACHE_ROOT/.fetch.lock"
  flock "$fetch_lock"
  if [ -f "$src/.complete" ]; then echo "$src"; exec {fetch_lock}>&-; return; fi
  log "fetching Debian's trilinos source package for Kokkos $KOKKOS_VERSION" >&2
  local dl="$CACHE_ROOT/src/download"
  rm -rf "$dl" "$src"
  mkdir -p "$dl" "$src"
  (cd "$dl" && private_apt source --download-only trilinos >/dev/null)
  local tarball
  tarball="$(ls "$dl"/trilinos_*.orig.tar.* | head -n1)"
  # Only Kokkos and Kokkos Kernels are needed out of the whole Trilinos tree.
  tar -xf "$tarball" -C "$src" --strip-components=2 --wildcards \
    '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
  grep -q "Kokkos_VERSION_MINOR 4" "$src/kokkos/CMakeLists.txt" ||
    { echo "setup: trilinos source does not carry Kokkos $KOKKOS_VERSION" >&2; exit 1; }
  rm -rf "$dl"
  touch "$src/.complete"
  exec {fetch_lock}>&-
  echo "$src"
}

build_kokkos() {
  local backend="$1"
  local prefix
  prefix="$(prefix_for "$backend")"
  if [ -f "$prefix/.complete" ]; then log "Kokkos $KOKKOS_VERSION ($backend) cached in $prefix"; return; fi
  # Another checkout may be building into the same cache right now: wait for it, then look again.
  local lock
  exec {lock}>"$CACHE_ROOT/.build.lock"
  if ! flock -n "$lock"; then
    log "another setup_dependencies.sh is building in $CACHE_ROOT; waiting for it"
    flock "$lock"
  fi
  if [ -f "$prefix/.complete" ]; then
    log "Kokkos $KOKKOS_VERSION ($backend) cached in $prefix"
    exec {lock}>&-
    return
  fi
  local src
  src="$(fetch_kokkos_sources)"
  local build="$CACHE_ROOT/build/$backend"
  rm -rf "$build" "$prefix"
  mkdir -p "$build" "$prefix"
  local common=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
    -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON)
  local kokkos_opts kk_opts
  # dgatd calls one Kokkos Kernels kernel, spmv (the assembled baseline), and compiles it inline for
  # the host spaces: ahead-of-time instances of every kernel for OpenMP took most of a new user's
  # first command (5 minutes on 2 cores) for nothing dgatd runs. Only the sparse component, no
  # instances.
  kk_opts=(-DKokkosKernels_ENABLED_COMPONENTS=SPARSE -DKokkosKernels_ADD_DEFAULT_ETI=OFF
    -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF -DKokkosKernels_INST_EXECSPACE_OPENMP=OFF
    -DKokkosKernels_INST_MEMSPACE_HOSTSPACE=OFF
    -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF)
  kokkos_opts=(-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON)
  if [ "$backend" = cuda ]; then
    # Kokkos 3.4 needs CUDA 11.8's nvcc (not the machine's newer one) with g++-11 as host compiler;
    # a small wrapper pins both, and the GPU code, so the Kokkos build and every dgatd CUDA build
    # compile the same way. The machine's own CUDA (CUDA_HOME, first on PATH) must not be found by
    # CMake's CUDAToolkit search.
    export PATH="/usr/lib/nvidia-cuda-toolkit/bin:$PATH"
    unset CUDA_HOME CUDA_PATH CUDA_ROOT
    mkdir -p "$prefix/bin"
    cat >"$prefix/bin/dgatd-nvcc-wrapper" <<WRAP
#!/bin/sh
PATH="/usr/lib/nvidia-cuda-toolkit/bin:\$PATH" NVCC_WRAPPER_DEFAULT_COMPILER=g++-11 NVCC_APPEND_FLAGS="$CUDA_APPEND_FLAGS" exec "$prefix/bin/nvcc_wrapper_sm80" "\$@"
WRAP
    chmod +x "$prefix/bin/dgatd-nvcc-wrapper"
    # The wrapper's built-in default architecture (sm_35) is gone from CUDA 11.8; CMake's compiler
    # probe compiles without -arch, so point the default at the architecture we build for.
    sed 's/^default_arch="sm_[0-9]*"/default_arch="sm_80"/' "$src/kokkos/bin/nvcc_wrapper" >"$prefix/bin/nvcc_wrapper_sm80"
    chmod +x "$prefix/bin/nvcc_wrapper_sm80"
    # Debian lays CUDA 11.8 out under /usr (bin/nvcc, include, lib/x86_64-linux-gnu).
    common+=(-DCMAKE_CXX_COMPILER="$prefix/bin/dgatd-nvcc-wrapper" -DCUDAToolkit_ROOT=/usr)
    kokkos_opts+=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ARCH_AMPERE80=ON)
    # Instantiating all of Kokkos Kernels ahead for Cuda and OpenMP (every BLAS, graph and sparse
    # kernel, each file through nvcc) took 30 of CI's minutes with an empty cache. dgatd calls one
    # kernel, spmv, so only the sparse component is instantiated, for Cuda only (the OpenMP spmv is
    # compiled inline in dgatd's assembled step). Cuda's ahead-of-time instances are not optional:
    # Kokkos Kernels 3.4 declares its cuSPARSE spmv only as such an instance, and without it the
    # Cuda spmv fails to link.
    kk_opts=(-DKokkosKernels_ENABLED_COMPONENTS=SPARSE -DKokkosKernels_ADD_DEFAULT_ETI=OFF
      -DKokkosKernels_INST_DOUBLE=ON -DKokkosKernels_INST_ORDINAL_INT=ON -DKokkosKernels_INST_OFFSET_INT=ON
      -DKokkosKernels_INST_OFFSET_SIZE_T=OFF -DKokkosKernels_INST_LAYOUTLEFT=ON
      -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF -DKokkosKernels_INST_EXECSPACE_OPENMP=OFF
      -DKokkosKernels_INST_EXECSPACE_CUDA=ON -DKokkosKernels_INST_MEMSPACE_HOSTSPACE=OFF
      -DKokkosKernels_INST_MEMSPACE_CUDASPACE=ON -DKokkosKernels_INST_MEMSPACE_CUDAUVMSPACE=OFF
      -DKokkosKernels_ENABLE_TPL_CUSPARSE=ON -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF)
  fi
  log "building Kokkos $KOKKOS_VERSION ($backend) into $prefix"
  cmake -S "$src/kokkos" -B "$build/kokkos" "${common[@]}" "${kokkos_opts[@]}" >"$build/kokkos.log" 2>&1 ||
    { tail -30 "$build/kokkos.log"; exit 1; }
  cmake --build "$build/kokkos" -j "$JOBS" >>"$build/kokkos.log" 2>&1 || { tail -30 "$build/kokkos.log"; exit 1; }
  cmake --install "$build/kokkos" >>"$build/kokkos.log" 2>&1
  log "building Kokkos Kernels $KOKKOS_VERSION ($backend)"
  cmake -S "$src/kokkos-kernels" -B "$build/kk" "${common[@]}" -DKokkos_ROOT="$prefix" "${kk_opts[@]}" \
    >"$build/kk.log" 2>&1 || { tail -30 "$build/kk.log"; exit 1; }
  cmake --build "$build/kk" -j "$JOBS" >>"$build/kk.log" 2>&1 || { tail -30 "$build/kk.log"; exit 1; }
  cmake --install "$build/kk" >>"$build/kk.log" 2>&1
  rm -rf "$build"
  touch "$prefix/.complete"
  exec {lock}>&-
}

mkdir -p "$CACHE_ROOT"
if [ "$WITH_TESTS" -eq 1 ]; then DEB_PACKAGES+=("${TEST_PACKAGES[@]}"); fi
# On a new machine the Kokkos sources (a 166 MB download) come in while the packages install.
prefetch=""
if [ ! -f "$(prefix_for openmp)/.complete" ] && [ ! -f "$CACHE_ROOT/src/kokkos-$KOKKOS_VERSION/.complete" ]; then
  private_apt_lists
  fetch_kokkos_sources >/dev/null &
  prefetch=$!
fi
install_packages "${DEB_PACKAGES[@]}"
if [ -n "$prefetch" ]; then wait "$prefetch"; fi
build_kokkos openmp
if [ "$WITH_CUDA" -eq 1 ]; then
  install_packages "${CUDA_PACKAGES[@]}"
  build_kokkos cuda
fi
log "ready: Kokkos_ROOT=$(prefix_for openmp)$([ "$WITH_CUDA" -eq 1 ] && echo " (CUDA: $(prefix_for cuda))" || true)"
