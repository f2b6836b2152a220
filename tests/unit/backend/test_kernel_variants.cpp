// Every Ampere block pass and per-tet layout, run on this execution space, against the host path
// (LayoutRight, the columns block pass) on the reference backend (reference_space.hpp: Serial, or
// OpenMP for the Serial executables): after one update from random fields and after hundreds of
// leapfrog steps; and float matrices with double fields against double. CI has no GPU, so this is
// where the GPU forms (one thread per block, team rows) are checked.
#include "cavity_fixture.hpp"
#include "reference_space.hpp"

#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/random.hpp"
#include "dgatd/solver/leapfrog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace {
using dgatd::testing::relative_difference;

using TestSpace = DGATD_TEST_EXEC_SPACE;
using ReferenceSpace = dgatd::testing::ReferenceSpaceFor<TestSpace>;
using dgatd::Index;
using dgatd::Real;
using dgatd::splitmix64_increment;
using dgatd::splitmix64_mix;
using dgatd::to_minus_one_to_one;
using dgatd::kernels::AmpereBlockPass;
using dgatd::kernels::block_pass_name;

// The relative 1e-14 below (of the largest reference value) is rounding alone. Faraday does the
// same arithmetic in every layout, and the columns and both interleaved passes (unrolled or
// generic) add the same products to each u^ in the same order: they agree bitwise unless a compiler
// fuses multiply-adds differently (GPUs, -march with FMA), half an ulp per addition of d <= 14.
// team_rows sums a row before scaling it by dt, (d + 1) eps = 1.7e-15 of the row's partial sums:
// 3e-16 to 5e-16 of max |u^| after one update here. No step reduces in parallel, so every run
// computes the same numbers.
constexpr double agreement = 1e-14;

// Closed PEC box, jittered: 1440 tets, interior blocks of 14 rows, boundary ones from 1 to 13.
dgatd::testing::Cavity const& cavity(bool blocks_by_degree)
{
  static auto const vertex_order = dgatd::testing::pec_box(1.0, 0.75, 0.5, 8, 6, 5, 0.2);
  static auto const by_degree = [] {
    dgatd::dga::AssemblyOptions options;
    options.group_blocks_by_degree = true;
    return dgatd::testing::pec_box(1.0, 0.75, 0.5, 8, 6, 5, 0.2, options);
  }();
  return blocks_by_degree ? by_degree : vertex_order;
}

// A reproducible number in [-1, 1) for each key, independent of the order keys are drawn in.
double uniform(std::uint64_t key)
{
  return to_minus_one_to_one(splitmix64_mix(key * splitmix64_increment + 0x632be59bd9b4e019ULL));
}

// The fields after an update, on the host: u^ by unknown, f^ by (tet, face).
struct Snapshot {
  std::vector<double> u;
  std::vector<double> f;
};

template <class Fields>
Snapshot snapshot(Fields const& fields)
{
  auto const u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields.u);
  auto const f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields.f);
  Snapshot s{std::vector<double>(u.data(), u.data() + u.extent(0)), std::vector<double>(4 * f.extent(0))};
  for (std::size_t t = 0; t < f.extent(0); ++t)
    for (int j = 0; j < 4; ++j) s.f[4 * t + j] = f(t, j);
  return s;
}

// Random free u^ and f^ (the same on every call).
template <class FieldScalar, class Space, class Layout>
dgatd::kernels::Fields<Space, Layout, FieldScalar>
random_fields(dgatd::kernels::DeviceOperators<Space, Layout> const& ops)
{
  auto const fields = dgatd::kernels::make_fields<Space, Layout, FieldScalar>(ops);
  auto u = Kokkos::create_mirror_view(fields.u);
  auto f = Kokkos::create_mirror_view(fields.f);
  Kokkos::deep_copy(u, 0.0);
  for (Index i = 0; i < ops.num_free; ++i) u(i) = static_cast<FieldScalar>(uniform(static_cast<std::uint64_t>(i)));
  for (Index t = 0; t < ops.num_tets; ++t)
    for (int j = 0; j < 4; ++j)
      f(t, j) = static_cast<FieldScalar>(uniform((std::uint64_t{1} << 40) + 4 * static_cast<std::uint64_t>(t) + j));
  Kokkos::deep_copy(fields.u, u);
  Kokkos::deep_copy(fields.f, f);
  return fields;
}

// Random free u^ and f^, then Faraday; then u^ set to zero and Ampere, so that u^ is Ampere's whole
// increment dt (Meps)^-1 C~ f^ rather than a small change to random numbers, and f^ is Faraday's
// result.
// FieldScalar float: single precision's fields (with float matrices).
template <class Space, class Layout, class FieldScalar = Real>
Snapshot one_update(dgatd::dga::HostOperators const& host, AmpereBlockPass pass, double time_step,
                    int unrolled_degree_limit = dgatd::kernels::max_unrolled_degree,
                    dgatd::kernels::MatrixPrecision precision = dgatd::kernels::MatrixPrecision::float64)
{
  Space const space;
  auto const dt = static_cast<FieldScalar>(time_step);
  auto const ops = dgatd::kernels::upload<Space, Layout>(host, pass, precision);
  auto const fields = random_fields<FieldScalar>(ops);
  dgatd::kernels::faraday_update(space, ops, fields, dt);
  Kokkos::deep_copy(space, fields.u, 0.0);
  dgatd::kernels::ampere_update(space, ops, fields, dt, unrolled_degree_limit);
  space.fence();
  return snapshot(fields);
}

double stable_dt()
{
  static double const dt = [] {
    dgatd::solver::FractionedLeapfrog<Kokkos::Serial> solver(Kokkos::Serial(), cavity(false).operators);
    return 0.9 * solver.estimate_stability().dt_max;
  }();
  return dt;
}

template <class Layout>
void expect_one_update_agrees(bool blocks_by_degree, char const* layout)
{
  auto const& host = cavity(blocks_by_degree).operators;
  double const dt = stable_dt();
  Snapshot const reference = one_update<ReferenceSpace, Kokkos::LayoutRight>(host, AmpereBlockPass::columns, dt);
  for (AmpereBlockPass const pass : dgatd::kernels::all_block_passes) {
    Snapshot const tested = one_update<TestSpace, Layout>(host, pass, dt);
    double const u_error = relative_difference(tested.u, reference.u);
    double const f_error = relative_difference(tested.f, reference.f);
    std::printf("%s, %s, %s: u %.2e, f %.2e\n", layout, blocks_by_degree ? "by degree" : "vertex order",
                block_pass_name(pass), u_error, f_error);
    EXPECT_LE(u_error, agreement) << layout << ' ' << block_pass_name(pass);
    EXPECT_LE(f_error, agreement) << layout << ' ' << block_pass_name(pass);
  }
}

TEST(KernelVariants, OneUpdateAgreesWithHostPath)
{
  for (bool const by_degree : {false, true}) {
    expect_one_update_agrees<Kokkos::LayoutRight>(by_degree, "LayoutRight");
    expect_one_update_agrees<Kokkos::LayoutLeft>(by_degree, "LayoutLeft");
  }
}

// The generic kernel serves blocks above max_unrolled_degree, which this mesh has none of: with
// the limit at zero every group runs it; at 10 the band of degrees 9-16 is split between it and the
// compiled kernels.
TEST(KernelVariants, GenericInterleavedKernelAgreesWithHostPath)
{
  auto const& host = cavity(true).operators;
  double const dt = stable_dt();
  Snapshot const reference = one_update<ReferenceSpace, Kokkos::LayoutRight>(host, AmpereBlockPass::columns, dt);
  for (int const limit : {0, 10})
    for (AmpereBlockPass const pass : {AmpereBlockPass::interleaved, AmpereBlockPass::interleaved_simd}) {
      Snapshot const tested = one_update<TestSpace, Kokkos::LayoutRight>(host, pass, dt, limit);
      double const u_error = relative_difference(tested.u, reference.u);
      std::printf("generic above degree %d, %s: u %.2e\n", limit, block_pass_name(pass), u_error);
      EXPECT_LE(u_error, agreement) << block_pass_name(pass) << ", limit " << limit;
    }
}

// Faraday by runs of tets (kernels::TetRuns: a run over ranks with overlap steps the runs that hold
// no rim tet while the halo flies, then the others), in both forms of work item, a run per item (a
// host's) and a tet per item (a GPU's): every tet is stepped once by the arithmetic of one pass over
// all, so f^ is that pass's bit for bit. This box's 1260 tets end in a partial run of 12.
template <bool RunPerItem>
void expect_runs_step_every_tet_once()
{
  using Layout = dgatd::kernels::DefaultTetLayout<TestSpace>;
  using dgatd::kernels::tets_per_run;
  static auto const box = dgatd::testing::pec_box(1.0, 0.75, 0.5, 7, 6, 5, 0.2);
  TestSpace const space;
  double const dt = stable_dt();
  auto const ops = dgatd::kernels::upload<TestSpace, Layout>(box.operators, AmpereBlockPass::interleaved);
  ASSERT_NE(ops.num_tets % tets_per_run, 0);
  auto const whole = random_fields<Real>(ops);
  dgatd::kernels::faraday_update(space, ops, whole, dt);

  // Every third run stands for one that holds a rim tet, and the partial last run too.
  std::vector<Index> interior, rim;
  for (Index first = 0; first < ops.num_tets; first += tets_per_run)
    (first / tets_per_run % 3 == 1 || first + tets_per_run > ops.num_tets ? rim : interior).push_back(first);
  auto const by_runs = random_fields<Real>(ops);
  dgatd::kernels::with_faraday_kernel(ops, by_runs, dt, [&](auto const& kernel) {
    using Kernel = std::decay_t<decltype(kernel)>;
    for (auto const* first_tets : {&interior, &rim}) {
      dgatd::kernels::TetRuns<Kernel, RunPerItem> const runs{
          kernel, dgatd::kernels::upload_flat<Kokkos::View<Index*, typename Kernel::memory_space>>("runs", *first_tets),
          ops.num_tets};
      Kokkos::parallel_for("runs", typename Kernel::policy_type(space, 0, runs.work_items()), runs);
    }
  });
  space.fence();
  Snapshot const expected = snapshot(whole);
  Snapshot const tested = snapshot(by_runs);
  std::printf("%s: %zu interior runs, %zu rim runs, f %.2e\n", RunPerItem ? "a run per item" : "a tet per item",
              interior.size(), rim.size(), relative_difference(tested.f, expected.f));
  EXPECT_EQ(tested.f, expected.f);
}

TEST(KernelVariants, FaradayByRunsOfTetsStepsEveryTetOnce)
{
  expect_runs_step_every_tet_once<true>();
  expect_runs_step_every_tet_once<false>();
}

template <class Layout>
void expect_steps_agree(char const* layout, Snapshot const& reference, int steps, double bound)
{
  auto const& host = cavity(false).operators;
  for (AmpereBlockPass const pass : dgatd::kernels::all_block_passes) {
    dgatd::solver::FractionedLeapfrog<TestSpace, Layout> solver(TestSpace(), host, pass);
    ASSERT_EQ(solver.operators().block_pass, pass);
    solver.set_dt(stable_dt());
    solver.set_random_initial_field(31);
    for (int n = 0; n < steps; ++n) solver.step();
    Snapshot const tested = snapshot(solver.fields());
    double const u_error = relative_difference(tested.u, reference.u);
    double const f_error = relative_difference(tested.f, reference.f);
    std::printf("%s, %s, %d steps: u %.2e, f %.2e\n", layout, block_pass_name(pass), steps, u_error, f_error);
    EXPECT_LE(u_error, bound) << layout << ' ' << block_pass_name(pass);
    EXPECT_LE(f_error, bound) << layout << ' ' << block_pass_name(pass);
  }
}

// The leapfrog neither damps nor amplifies (its energy is conserved), so the rounding differences
// team_rows makes each step, at most (d + 1) eps = 1.7e-15 of a row (above), are carried along, not
// grown, and add up like a random walk: sqrt(200) x 1.7e-15 = 2.4e-14 after 200 steps. Measured
// 5.4e-15 in u^ and 6.6e-15 in f^ on one CPU; 8.9e-15 and 1.3e-14 on an AVX-512 EPYC at -march=native,
// whose one update differs by 5.6e-16 to 6.7e-16 instead of 3e-16 to 5e-16.
TEST(KernelVariants, LeapfrogStepsAgreeWithHostPath)
{
  constexpr int steps = 200;
  dgatd::solver::FractionedLeapfrog<ReferenceSpace, Kokkos::LayoutRight> host_path(
      ReferenceSpace(), cavity(false).operators, AmpereBlockPass::columns);
  host_path.set_dt(stable_dt());
  host_path.set_random_initial_field(31);
  for (int n = 0; n < steps; ++n) host_path.step();
  Snapshot const reference = snapshot(host_path.fields());
  double const bound = std::sqrt(static_cast<double>(steps)) * 15 * std::numeric_limits<double>::epsilon() / 2;
  expect_steps_agree<Kokkos::LayoutRight>("LayoutRight", reference, steps, bound);
  expect_steps_agree<Kokkos::LayoutLeft>("LayoutLeft", reference, steps, bound);
}

// Every local matrix stored in float, the fields and every accumulation in double (mixed
// precision): each stored entry is within 2^-24 = 6e-8 of its double value, so a Faraday row (four
// terms of (Mmu_t)^-1 times face circulations) or a dual-block row (d <= 14 terms) is within 6e-8
// of the sum of its terms' magnitudes. Relative to the largest value that is 6e-8 times the cancellation of random
// fields (about 3 here), far below the 1e-6 asked; double against double agrees to 1e-14 above, so a 1e-6 failure here
// would be a kernel reading its matrices wrongly in float, not rounding.
TEST(KernelVariants, FloatMatricesWithDoubleFieldsAgreeWithDouble)
{
  using Layout = dgatd::kernels::DefaultTetLayout<TestSpace>;
  constexpr double float_agreement = 1e-6;
  auto const& host = cavity(true).operators;
  double const dt = stable_dt();
  Snapshot const reference = one_update<TestSpace, Layout>(host, AmpereBlockPass::columns, dt);
  for (AmpereBlockPass const pass : dgatd::kernels::all_block_passes) {
    Snapshot const tested = one_update<TestSpace, Layout>(host, pass, dt, dgatd::kernels::max_unrolled_degree,
                                                          dgatd::kernels::MatrixPrecision::float32);
    double const u_error = relative_difference(tested.u, reference.u);
    double const f_error = relative_difference(tested.f, reference.f);
    std::printf("float matrices, %s: u %.2e, f %.2e\n", block_pass_name(pass), u_error, f_error);
    EXPECT_LE(u_error, float_agreement) << block_pass_name(pass);
    EXPECT_LE(f_error, float_agreement) << block_pass_name(pass);
    // Rounded, not exact: the matrices really were stored in float.
    EXPECT_GT(u_error, 0.0) << block_pass_name(pass);
  }
}

// Single precision: the fields are float too, so the inputs are rounded (6e-8) and every sum runs in
// float. A value of Faraday's update sums 6 circulations and a 4 x 4 product, one of Ampere's a dual
// curl of up to about 30 pieces and a block row of about 15: with float rounding 6e-8 per operation
// the worst case is about 50 x 6e-8 = 3e-6 of the sum of the magnitudes, about 3 times the largest
// value here (the cancellation above), so 1e-5; a float field read with the double kernel's
// arithmetic, or a wrong index, errs by order 1.
template <class Layout>
void expect_single_precision_update_agrees(char const* layout)
{
  constexpr double single_agreement = 1e-5;
  auto const& host = cavity(true).operators;
  double const dt = stable_dt();
  Snapshot const reference = one_update<TestSpace, Layout>(host, AmpereBlockPass::columns, dt);
  for (AmpereBlockPass const pass : dgatd::kernels::all_block_passes) {
    Snapshot const tested = one_update<TestSpace, Layout, float>(host, pass, dt, dgatd::kernels::max_unrolled_degree,
                                                                 dgatd::kernels::MatrixPrecision::float32);
    double const u_error = relative_difference(tested.u, reference.u);
    double const f_error = relative_difference(tested.f, reference.f);
    std::printf("single precision, %s, %s: u %.2e, f %.2e\n", layout, block_pass_name(pass), u_error, f_error);
    EXPECT_LE(u_error, single_agreement) << layout << ' ' << block_pass_name(pass);
    EXPECT_LE(f_error, single_agreement) << layout << ' ' << block_pass_name(pass);
    EXPECT_GT(f_error, 0.0) << layout << ' ' << block_pass_name(pass);
  }
}

TEST(KernelVariants, SinglePrecisionUpdateAgreesWithDoubleToFloatRounding)
{
  expect_single_precision_update_agrees<Kokkos::LayoutRight>("right");
  expect_single_precision_update_agrees<Kokkos::LayoutLeft>("left");
}

} // namespace
