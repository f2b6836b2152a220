#!/usr/bin/env bash
# cmake --preset PRESET [ARGS...], with Ninja (when installed) for a new build folder: Ninja compiles
# a target's sources while the targets it depends on are still compiling, where Make waits for them to
# link, so both cores stay busy beside the CUDA build's few long translation units. A folder
# configured before keeps its generator (CMake refuses to change it).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="$1"
shift
binary_dir="$(sed -n "/\"name\": \"$preset\"/,/binaryDir/s|.*\"binaryDir\": \"\${sourceDir}/\([^\"]*\)\".*|\1|p" CMakePresets.json)"
if [ -z "$binary_dir" ]; then
  echo "configure_preset.sh: CMakePresets.json has no configure preset '$preset'" >&2
  exit 2
fi
generator=()
if [ ! -f "$binary_dir/CMakeCache.txt" ] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
exec cmake --preset "$preset" "${generator[@]}" "$@"
