#include "dgatd/device_compatibility.hpp"

#include <Kokkos_Macros.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dgatd {

namespace {

struct Image {
  bool machine_code = false; // sm_XY; otherwise PTX, compute_XY
  int arch = 0;              // 10 * major + minor
  bool arch_specific = false;
  std::string name;
};

int major_of(int arch) { return arch / 10; }
int minor_of(int arch) { return arch % 10; }

std::optional<Image> parse_image(std::string const& token)
{
  Image image;
  std::string digits;
  if (token.rfind("sm_", 0) == 0) {
    image.machine_code = true;
    digits = token.substr(3);
  } else if (token.rfind("compute_", 0) == 0) {
    digits = token.substr(8);
  } else {
    return std::nullopt;
  }
  if (!digits.empty() && digits.back() == 'a') {
    image.arch_specific = true;
    digits.pop_back();
  }
  if (digits.size() < 2 || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  image.arch = std::stoi(digits);
  image.name = token;
  return image;
}

std::optional<std::vector<Image>> parse_images(std::string_view compiled)
{
  std::vector<Image> images;
  std::string token;
  auto flush = [&]() {
    if (token.empty()) return true;
    auto image = parse_image(token);
    token.clear();
    if (!image) return false;
    images.push_back(*image);
    return true;
  };
  for (char const c : compiled) {
    if (c == ' ' || c == ',') {
      if (!flush()) return std::nullopt;
    } else {
      token += c;
    }
  }
  if (!flush() || images.empty()) return std::nullopt;
  return images;
}

std::string capability(int arch) { return std::to_string(major_of(arch)) + "." + std::to_string(minor_of(arch)); }

std::string kokkos_name(int version)
{
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

} // namespace

CudaCompatibility check_cuda_compatibility(int device_major, int device_minor, std::string_view compiled,
                                           int kokkos_version)
{
  CudaCompatibility result;
  auto const images = parse_images(compiled);
  if (!images) {
    result.reason = "the GPU code compiled in is not known (\"" + std::string(compiled) + "\")";
    return result;
  }
  int const device = 10 * device_major + device_minor;

  Image const* machine_code = nullptr;
  Image const* ptx = nullptr;
  for (auto const& image : *images) {
    bool const fits = image.arch_specific ? image.arch == device
                                          : (image.machine_code ? major_of(image.arch) == device_major &&
                                                                      minor_of(image.arch) <= device_minor
                                                                : image.arch <= device);
    if (!fits) continue;
    Image const*& best = image.machine_code ? machine_code : ptx;
    if (best == nullptr || image.arch > best->arch) best = &image;
  }
  Image const* const loaded = machine_code != nullptr ? machine_code : ptx;

  std::string const sm = "sm_" + std::to_string(device);
  if (loaded == nullptr) {
    result.verdict = CudaCompatibility::Verdict::cannot_run;
    result.reason = "no machine code for it and no PTX for compute capability " + capability(device) + " or older";
    result.fix = "rebuild dgatd and Kokkos with code for " + sm;
    return result;
  }
  // Kokkos_Cuda_Instance.cpp before 4.0 aborts unless the running code has the device's major and a
  // minor no higher than the device's; from 4.0 only a newer running code is refused, which the
  // driver never loads.
  if (kokkos_version < 40000 && major_of(loaded->arch) != device_major) {
    result.verdict = CudaCompatibility::Verdict::cannot_run;
    result.reason = "the driver would compile its " + loaded->name + " PTX, and Kokkos " + kokkos_name(kokkos_version) +
                    " refuses code of another major compute capability";
    result.fix = "rebuild dgatd and Kokkos with machine code for " + sm +
                 " (a Kokkos and CUDA that know this GPU), or against Kokkos 4.0 or newer, which runs the PTX";
    return result;
  }
  result.verdict = CudaCompatibility::Verdict::runs;
  result.running_code = loaded->name;
  return result;
}

CudaCompatibility check_device_compatibility(DeviceInfo const& device)
{
  if (!device.is_gpu) return {};
  return check_cuda_compatibility(device.compute_major, device.compute_minor, device.compiled_architectures,
                                  KOKKOS_VERSION);
}

std::optional<std::string> start_up_problem(DeviceInfo const& device, CudaCompatibility const& compatibility)
{
  if (device.compiled_architectures.empty()) return std::nullopt;
  if (!device.is_gpu)
    return device.name + ": this dgatd is a CUDA build and needs an NVIDIA GPU (on CPUs use the openmp build)";
  if (compatibility.verdict == CudaCompatibility::Verdict::cannot_run)
    return "GPU \"" + device.name + "\" (compute capability " + compute_capability(device) +
           ") cannot run this build (GPU code: " + device.compiled_architectures + "): " + compatibility.reason + "; " +
           compatibility.fix;
  return std::nullopt;
}

} // namespace dgatd
