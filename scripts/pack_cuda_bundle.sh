#!/usr/bin/env bash
# Packs the cuda preset's dgatd, Cuda test executables and bench_local_steps, with the shared
# libraries they load, into one archive for a GPU machine that has none of Debian's packages (a lent
# device machine, whose transfers are capped at 64 MiB):
#
#   scripts/pack_cuda_bundle.sh [OUT.tar.xz]        (default .dev/bundle.tar.xz; build/cuda first)
#   there: mkdir /tmp/dgb && xz -dc bundle.tar.xz | tar -C /tmp/dgb -xf - &&
#          LD_LIBRARY_PATH=/tmp/dgb/lib /tmp/dgb/bin/dgatd --version      (scripts/gpu_checks.sh)
#
# A dgatd built with MPI brings Open MPI's launcher, plugins and help texts under mpi/, in Debian's
# paths, which Open MPI compiles in: there, copy them into place first (cp -a mpi/. /), then
# LD_LIBRARY_PATH=/tmp/dgb/lib /tmp/dgb/bin/mpirun -n 2 /tmp/dgb/bin/dgatd run ... (test_ranks too).
#
# Left out: the C and C++ runtime and libcuda (the machine's own), and CUDA 11.8's cuBLAS (670 MB
# with cuBLASLt) and cuSPARSE (280 MB), which no compression brings under the cap. Small stand-ins
# take their sonames: Kokkos Kernels links three cuBLAS entry points that dgatd never calls (the
# stand-in aborts if one is), and the ten cuSPARSE generic-API calls of its spmv are forwarded to
# the machine's cuSPARSE 12 (DGATD_CUSPARSE12 names it), whose generic API has the same ABI.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.dev/bundle.tar.xz}"
[ -x build/cuda/dgatd ] || { echo "pack_cuda_bundle.sh: no build/cuda/dgatd; build the cuda preset first" >&2; exit 1; }
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/src" "$(dirname "$out")"
cp build/cuda/dgatd build/cuda/tests/test_*_cuda "$stage/bin/"
# The local steps' lab (gpu_checks.sh terms), where built.
[ -x build/cuda/perf/bench_local_steps ] && cp build/cuda/perf/bench_local_steps "$stage/bin/"
if ldd build/cuda/dgatd | grep -q libmpi; then
  [ -x build/cuda/tests/test_ranks ] && cp build/cuda/tests/test_ranks "$stage/bin/"
  cp -L /usr/bin/orterun "$stage/bin/mpirun"
  mpi_paths=(/usr/bin/orted /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3 /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
    /usr/share/openmpi /etc/openmpi)
  for path in "${mpi_paths[@]}"; do
    mkdir -p "$stage/mpi$(dirname "$path")"
    cp -a "$path" "$stage/mpi$path"
  done
fi
strip --strip-unneeded "$stage"/bin/*
{
  for exe in "$stage"/bin/*; do ldd "$exe"; done
  find "$stage/mpi" -name '*.so' -exec ldd {} \; 2>/dev/null
} | awk '$3 ~ /^\// { print $3 }' | sort -u |
  grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libdl|libpthread|librt|libresolv|libcuda|libcublas|libcublasLt|libcusparse)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done

cat >"$stage/src/cublas.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int cublasCreate_v2(void **handle) { *handle = (void *)0x1; return 0; }
int cublasDestroy_v2(void *handle) { (void)handle; return 0; }
int cublasDscal_v2(void) { fputs("dgatd bundle: cuBLAS is not in this bundle (cublasDscal_v2 called)\n", stderr); abort(); }
C
cat >"$stage/src/cusparse.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static void *target(const char *name) {
  static void *lib;
  if (!lib) {
    const char *path = getenv("DGATD_CUSPARSE12");
    lib = dlopen(path && *path ? path : "libcusparse.so.12", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) { fprintf(stderr, "dgatd bundle: no cuSPARSE 12 (%s); set DGATD_CUSPARSE12\n", dlerror()); abort(); }
  }
  void *f = dlsym(lib, name);
  if (!f) { fprintf(stderr, "dgatd bundle: cuSPARSE 12 has no %s\n", name); abort(); }
  return f;
}
#define FORWARD(ret, name, params, args) \
  ret name params { return ((ret(*) params)target(#name)) args; }
FORWARD(int, cusparseCreate, (void **h), (h))
FORWARD(int, cusparseDestroy, (void *h), (h))
FORWARD(int, cusparseCreateCsr, (void **m, int64_t r, int64_t c, int64_t n, void *ro, void *ci, void *v, int rt, int ct, int b, int vt), (m, r, c, n, ro, ci, v, rt, ct, b, vt))
FORWARD(int, cusparseCreateDnVec, (void **d, int64_t s, void *v, int t), (d, s, v, t))
FORWARD(int, cusparseDestroyDnVec, (void *d), (d))
FORWARD(int, cusparseDestroySpMat, (void *m), (m))
FORWARD(const char *, cusparseGetErrorName, (int s), (s))
FORWARD(const char *, cusparseGetErrorString, (int s), (s))
FORWARD(int, cusparseSpMV, (void *h, int op, const void *a, void *m, void *x, const void *b, void *y, int ct, int alg, void *buf), (h, op, a, m, x, b, y, ct, alg, buf))
FORWARD(int, cusparseSpMV_bufferSize, (void *h, int op, const void *a, void *m, void *x, const void *b, void *y, int ct, int alg, size_t *sz), (h, op, a, m, x, b, y, ct, alg, sz))
C
for name in cublas cusparse; do
  echo "lib$name.so.11 { global: *; };" >"$stage/src/$name.map"
  gcc -shared -fPIC -O2 -Wl,-soname,"lib$name.so.11" -Wl,--version-script="$stage/src/$name.map" \
    "$stage/src/$name.c" -o "$stage/lib/lib$name.so.11" -ldl
done
tar -C "$stage" -cf - bin lib $([ -d "$stage/mpi" ] && echo mpi) | xz -T"$(nproc)" -9 >"$out"
echo "pack_cuda_bundle.sh: $out, $(du -h "$out" | cut -f1) ($(ls "$stage/bin" | wc -l) executables, $(ls "$stage/lib" | wc -l) libraries)"
