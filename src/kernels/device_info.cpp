#include "dgatd/device_info.hpp"

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <fstream>
#include <string>
#include <unistd.h>

namespace dgatd {

#if !defined(KOKKOS_ENABLE_CUDA)
// Host builds describe the CPU; CUDA builds describe the GPU only.
namespace {

std::string cpu_model_name()
{
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    auto const colon = line.find(':');
    if (colon == std::string::npos) break;
    auto const start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return "unknown CPU";
}

// The largest cache sysfs lists for CPU 0 ("32768K"), in bytes; 0 if it lists none.
std::int64_t host_last_level_cache_bytes()
{
  std::int64_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream size_file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string text;
    if (!(size_file >> text) || text.empty()) continue;
    std::int64_t bytes = 0;
    try {
      bytes = std::stoll(text);
    } catch (...) {
      continue;
    }
    char const unit = text.back();
    if (unit == 'K') bytes <<= 10;
    if (unit == 'M') bytes <<= 20;
    if (bytes > largest) largest = bytes;
  }
  return largest;
}

std::int64_t host_memory_bytes()
{
  long const pages = sysconf(_SC_PHYS_PAGES);
  long const page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<std::int64_t>(pages) * page_size : 0;
}

} // namespace
#endif

int visible_device_count()
{
#if defined(KOKKOS_ENABLE_CUDA)
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
#else
  return 0;
#endif
}

DeviceInfo describe_default_device([[maybe_unused]] int device_id)
{
  DeviceInfo info;
#if defined(KOKKOS_ENABLE_CUDA)
  cudaDeviceProp properties{};
  cudaError_t const status = cudaGetDeviceProperties(&properties, device_id);
  if (status == cudaSuccess) {
    info.name = properties.name;
    info.is_gpu = true;
    info.compute_major = properties.major;
    info.compute_minor = properties.minor;
    info.memory_bytes = static_cast<std::int64_t>(properties.totalGlobalMem);
    info.last_level_cache_bytes = properties.l2CacheSize;
  } else {
    info.name = std::string("no CUDA device ") + std::to_string(device_id) + " (" + cudaGetErrorString(status) + ")";
  }
#ifdef DGATD_CUDA_ARCHITECTURES
  // CMake lists the architectures with commas (nvcc_wrapper splits definitions at spaces).
  info.compiled_architectures = DGATD_CUDA_ARCHITECTURES;
  std::replace(info.compiled_architectures.begin(), info.compiled_architectures.end(), ',', ' ');
#else
  info.compiled_architectures = "unknown";
#endif
#else
  info.name = cpu_model_name();
  info.memory_bytes = host_memory_bytes();
  info.last_level_cache_bytes = host_last_level_cache_bytes();
#endif
  return info;
}

} // namespace dgatd
