#pragma once
// Whether a GPU can run the code compiled into a CUDA build, decided before Kokkos starts: Kokkos
// aborts with a trace on a mismatch, and the user deserves one line saying what to rebuild.
// Pure host code, so the rule is tested without a GPU.

#include "dgatd/device_info.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace dgatd {

struct CudaCompatibility {
  enum class Verdict { runs, cannot_run, unknown };
  Verdict verdict = Verdict::unknown;
  // When it runs: the image the driver loads, "sm_90" (machine code) or "compute_90" (PTX, compiled
  // by the driver at start-up).
  std::string running_code;
  // When it cannot run: why, and what to rebuild with. When unknown: why no decision was made.
  std::string reason;
  std::string fix;
};

// `compiled` lists the images in the binary ("sm_80 sm_90 compute_90", spaces or commas; an arch
// may carry the 'a' suffix of arch-specific code); "unknown" or "" leaves the decision to Kokkos.
// `kokkos_version` is KOKKOS_VERSION (30401 for 3.4.1).
//
// The rule: the driver loads machine code sm_XY on a device of capability M.m when X == M and
// Y <= m (the newest such), else it compiles the newest PTX compute_XY with XY <= Mm; arch-specific
// code (sm_90a, compute_90a) runs only on exactly that capability. Kokkos before 4.0 then also
// refuses code whose major differs from the device's, so there PTX of an older major does not help.
CudaCompatibility check_cuda_compatibility(int device_major, int device_minor, std::string_view compiled,
                                           int kokkos_version);

// check_cuda_compatibility for the default device: its capability against the code compiled into
// this build (DeviceInfo::compiled_architectures) and this Kokkos; Verdict::unknown, with nothing
// to decide, when the device is not a GPU.
CudaCompatibility check_device_compatibility(DeviceInfo const& device);

// One line saying why this build cannot start on device, or nothing: a CUDA build (one with
// compiled_architectures) needs an NVIDIA GPU, and one its code runs on (verdict cannot_run says
// why not and what to rebuild with). Host builds start anywhere.
std::optional<std::string> start_up_problem(DeviceInfo const& device, CudaCompatibility const& compatibility);

} // namespace dgatd
