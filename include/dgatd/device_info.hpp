#pragma once
// What the default execution space runs on: the device's name, its memory and cache sizes, and
// for CUDA builds its compute capability and the GPU code compiled into this build. The version
// banner, the start-up compatibility check and the bandwidth lab all read it.

#include <cstdint>
#include <string>

namespace dgatd {

struct DeviceInfo {
  std::string name; // GPU product name or CPU model name
  bool is_gpu = false;
  int compute_major = 0; // GPUs only
  int compute_minor = 0;
  std::int64_t memory_bytes = 0; // device memory (GPUs) or physical memory (CPUs)
  std::int64_t last_level_cache_bytes = 0;
  // CUDA builds: the GPU code compiled in, e.g. "sm_80 sm_90 compute_80 compute_90" (machine code,
  // then PTX), or "unknown" if the build could not tell; empty on host builds.
  std::string compiled_architectures;
};

// "8.0" for compute capability 8.0 (GPUs).
inline std::string compute_capability(DeviceInfo const& device)
{
  return std::to_string(device.compute_major) + "." + std::to_string(device.compute_minor);
}

// Describes the device of Kokkos' default execution space. Callable before Kokkos::initialize.
DeviceInfo describe_default_device(int device_id = 0);

// The GPUs this process sees (CUDA builds; 0 on host builds). Callable before Kokkos::initialize.
int visible_device_count();

} // namespace dgatd
