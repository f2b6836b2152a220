// The start-up decision whether a GPU can run the compiled code, on the GPUs dgatd users have:
// the rule is CUDA's (machine code within a major, PTX forward) plus Kokkos 3.4's refusal of code
// of another major, which made the Ampere-only build abort on an H100.
#include "dgatd/device_compatibility.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace {

using dgatd::check_cuda_compatibility;
using Verdict = dgatd::CudaCompatibility::Verdict;

constexpr int kokkos_3_4 = 30401;
constexpr int kokkos_4_5 = 40501;
constexpr char const* shipped = "sm_80 sm_90 compute_80 compute_90";

TEST(DeviceCompatibility, HopperRunsItsOwnMachineCode)
{
  auto const result = check_cuda_compatibility(9, 0, "sm_80 sm_90 compute_90", kokkos_3_4);
  EXPECT_EQ(result.verdict, Verdict::runs);
  EXPECT_EQ(result.running_code, "sm_90");
}

TEST(DeviceCompatibility, AmpereFamilyRunsSm80)
{
  for (int minor : {0, 6, 7, 9}) {
    auto const result = check_cuda_compatibility(8, minor, shipped, kokkos_3_4);
    EXPECT_EQ(result.verdict, Verdict::runs) << "8." << minor;
    EXPECT_EQ(result.running_code, "sm_80") << "8." << minor;
  }
}

TEST(DeviceCompatibility, AmpereOnlyBuildIsRefusedOnHopperByKokkos34)
{
  // The build that aborted on the user's H100: only sm_80 + compute_80.
  auto const result = check_cuda_compatibility(9, 0, "sm_80 compute_80", kokkos_3_4);
  EXPECT_EQ(result.verdict, Verdict::cannot_run);
  EXPECT_NE(result.reason.find("compute_80"), std::string::npos) << result.reason;
  EXPECT_NE(result.reason.find("3.4.1"), std::string::npos) << result.reason;
  EXPECT_NE(result.fix.find("sm_90"), std::string::npos) << result.fix;
}

TEST(DeviceCompatibility, AmpereOnlyBuildRunsOnHopperThroughPtxWithKokkos4)
{
  auto const result = check_cuda_compatibility(9, 0, "sm_80 compute_80", kokkos_4_5);
  EXPECT_EQ(result.verdict, Verdict::runs);
  EXPECT_EQ(result.running_code, "compute_80");
}

TEST(DeviceCompatibility, BlackwellNeedsKokkos4ForHopperPtx)
{
  for (int major : {10, 12}) {
    auto const old_kokkos = check_cuda_compatibility(major, 0, "sm_80 sm_90 compute_90", kokkos_3_4);
    EXPECT_EQ(old_kokkos.verdict, Verdict::cannot_run) << major;
    EXPECT_NE(old_kokkos.fix.find("sm_" + std::to_string(10 * major)), std::string::npos) << old_kokkos.fix;
    EXPECT_NE(old_kokkos.fix.find("Kokkos 4.0 or newer"), std::string::npos) << old_kokkos.fix;

    auto const new_kokkos = check_cuda_compatibility(major, 0, "sm_80 sm_90 compute_90", kokkos_4_5);
    EXPECT_EQ(new_kokkos.verdict, Verdict::runs) << major;
    EXPECT_EQ(new_kokkos.running_code, "compute_90") << major;
  }
}

TEST(DeviceCompatibility, OlderGpusThanTheOldestCodeAreRefused)
{
  for (int version : {kokkos_3_4, kokkos_4_5}) {
    auto const volta = check_cuda_compatibility(7, 0, shipped, version);
    EXPECT_EQ(volta.verdict, Verdict::cannot_run);
    EXPECT_NE(volta.reason.find("7.0"), std::string::npos) << volta.reason;
    EXPECT_NE(volta.fix.find("sm_70"), std::string::npos) << volta.fix;
  }
}

TEST(DeviceCompatibility, MachineCodeOfAHigherMinorDoesNotRun)
{
  EXPECT_EQ(check_cuda_compatibility(8, 0, "sm_86", kokkos_4_5).verdict, Verdict::cannot_run);
  auto const ada = check_cuda_compatibility(8, 9, "sm_80 sm_86", kokkos_3_4);
  EXPECT_EQ(ada.verdict, Verdict::runs);
  EXPECT_EQ(ada.running_code, "sm_86");
}

TEST(DeviceCompatibility, MachineCodeIsPreferredOverPtx)
{
  auto const result = check_cuda_compatibility(8, 6, "sm_80 compute_86", kokkos_4_5);
  EXPECT_EQ(result.running_code, "sm_80");
}

TEST(DeviceCompatibility, PtxWithinTheMajorSatisfiesKokkos34)
{
  auto const result = check_cuda_compatibility(8, 6, "compute_80", kokkos_3_4);
  EXPECT_EQ(result.verdict, Verdict::runs);
  EXPECT_EQ(result.running_code, "compute_80");
  EXPECT_EQ(check_cuda_compatibility(8, 0, "compute_86", kokkos_4_5).verdict, Verdict::cannot_run);
}

TEST(DeviceCompatibility, ArchSpecificCodeRunsOnlyOnItsOwnCapability)
{
  EXPECT_EQ(check_cuda_compatibility(9, 0, "sm_90a", kokkos_4_5).running_code, "sm_90a");
  EXPECT_EQ(check_cuda_compatibility(10, 0, "sm_90a compute_90a", kokkos_4_5).verdict, Verdict::cannot_run);
  auto const with_ptx = check_cuda_compatibility(10, 0, "sm_90a compute_90", kokkos_4_5);
  EXPECT_EQ(with_ptx.running_code, "compute_90");
}

TEST(DeviceCompatibility, ThreeDigitArchitecturesCompareNumerically)
{
  auto const result = check_cuda_compatibility(12, 0, "sm_90 sm_100 sm_120 compute_120", kokkos_4_5);
  EXPECT_EQ(result.running_code, "sm_120");
  EXPECT_EQ(check_cuda_compatibility(10, 0, "sm_90,sm_100", kokkos_4_5).running_code, "sm_100");
}

TEST(DeviceCompatibility, UnknownCodeLeavesTheDecisionToKokkos)
{
  for (char const* compiled : {"", "unknown", "sm_80 gfx90a", "sm_8", "compute_"}) {
    auto const result = check_cuda_compatibility(9, 0, compiled, kokkos_3_4);
    EXPECT_EQ(result.verdict, Verdict::unknown) << '"' << compiled << '"';
    EXPECT_FALSE(result.reason.empty());
  }
}

// The start-up check main runs before Kokkos: nothing on host builds (no compiled GPU code), one line
// naming the device on a CUDA build without a GPU or with one its code cannot run on.
dgatd::DeviceInfo gpu(int major, int minor)
{
  dgatd::DeviceInfo device;
  device.name = "Some GPU";
  device.is_gpu = true;
  device.compute_major = major;
  device.compute_minor = minor;
  device.compiled_architectures = "sm_80 sm_90 compute_90";
  return device;
}

TEST(DeviceCompatibility, HostBuildsStartAnywhere)
{
  dgatd::DeviceInfo cpu;
  cpu.name = "Some CPU";
  EXPECT_EQ(dgatd::check_device_compatibility(cpu).verdict, Verdict::unknown);
  EXPECT_EQ(dgatd::start_up_problem(cpu, dgatd::check_device_compatibility(cpu)), std::nullopt);
}

TEST(DeviceCompatibility, CudaBuildNeedsAGpuItsCodeRunsOn)
{
  dgatd::DeviceInfo no_gpu = gpu(0, 0);
  no_gpu.is_gpu = false;
  no_gpu.name = "no CUDA device 0 (no CUDA-capable device is detected)";
  EXPECT_EQ(dgatd::start_up_problem(no_gpu, dgatd::check_device_compatibility(no_gpu)),
            no_gpu.name + ": this dgatd is a CUDA build and needs an NVIDIA GPU (on CPUs use the openmp build)");

  auto const hopper = gpu(9, 0);
  auto const runs = dgatd::check_device_compatibility(hopper);
  EXPECT_EQ(runs.verdict, Verdict::runs);
  EXPECT_EQ(runs.running_code, "sm_90");
  EXPECT_EQ(dgatd::start_up_problem(hopper, runs), std::nullopt);

  auto const volta = gpu(7, 0);
  auto const refused = dgatd::check_device_compatibility(volta);
  ASSERT_EQ(refused.verdict, Verdict::cannot_run);
  EXPECT_EQ(dgatd::start_up_problem(volta, refused),
            "GPU \"Some GPU\" (compute capability 7.0) cannot run this build (GPU code: sm_80 sm_90 compute_90): " +
                refused.reason + "; " + refused.fix);
}

} // namespace
