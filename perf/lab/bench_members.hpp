#pragma once
// The lab's benchmark members (dgatd bench, lab/kernel_bench.cpp): the problems it steps (PEC boxes,
// mesh files), their operators and unknowns, and the timed members it measures (STREAM, Faraday,
// Ampere, whole steps of both formulations). Private to lab/kernel_bench.cpp.

#include "lab/harness.hpp"
#include "lab/kernel_bench.hpp"
#include "lab/stream.hpp"

#include "dgatd/dga/assembled.hpp"
#include "dgatd/dga/operators.hpp"
#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/assembled.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/solver/leapfrog.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dgatd::perf {

// Named, not anonymous: nvcc rejects extended device lambdas whose enclosing function or template
// arguments have internal linkage.
namespace kernel_bench_detail {

using Default = Kokkos::DefaultExecutionSpace;
using HostParallel = Kokkos::DefaultHostExecutionSpace;
using DefaultLayout = kernels::DefaultTetLayout<Default>;
using OtherLayout =
    std::conditional_t<std::is_same_v<DefaultLayout, Kokkos::LayoutRight>, Kokkos::LayoutLeft, Kokkos::LayoutRight>;

// c = 1 units on the unit box. Power iteration on jittered (0.2) Kuhn boxes of 3 to 12 cells per
// side gives dt_max = 0.36 to 0.44 h; 0.1 h keeps thousands of back-to-back benchmark steps bounded,
// so no timing ever runs on overflowing or denormal numbers.
inline double bench_dt(int cells) { return 0.1 / cells; }

using simulation::Problem;

inline std::int64_t dofs(Problem const& p)
{
  return 2 * static_cast<std::int64_t>(p.topology.num_edges()) + 4 * static_cast<std::int64_t>(p.topology.num_tets());
}

// The closed PEC unit box in c = 1 units: the same system the solver tests step.
inline Problem make_problem(int cells, bool by_degree)
{
  mesh::StructuredBox box;
  box.cells[0] = box.cells[1] = box.cells[2] = cells;
  box.jitter = 0.2;
  dga::AssemblyOptions options;
  options.group_blocks_by_degree = by_degree;
  return simulation::pec_box(box, 1.0, 1.0, options);
}

// The closed PEC cavity of a mesh file in c = 1 units (lengths as the file gives them), renumbered
// in the given ordering.
inline Problem make_problem(std::string const& file, mesh::Ordering ordering)
{
  mesh::Mesh m = mesh::read_mesh(file);
  mesh::order_for_locality(m, ordering);
  std::size_t const num_tets = m.tets.size();
  return simulation::make_problem(
      std::move(m), dga::Materials{std::vector<double>(num_tets, 1.0), std::vector<double>(num_tets, 1.0), {}},
      simulation::BoundaryKinds{});
}

// A twentieth of the shortest edge: far below the stability bound of any mesh a solver would run,
// whose estimate would cost more than the benchmark, and the bytes and flops of a step do not
// depend on dt.
inline double mesh_dt(Problem const& p)
{
  double shortest = HUGE_VAL;
  for (auto const& e : p.topology.edge_vertices)
    shortest = std::min(shortest, norm(sub(p.mesh.points[e[1]], p.mesh.points[e[0]])));
  return 0.05 * shortest;
}

// The same problem's operators with the dual blocks in another order.
inline dga::HostOperators assemble_operators(Problem const& p, bool by_degree)
{
  dga::AssemblyOptions options;
  options.group_blocks_by_degree = by_degree;
  return dga::assemble(p.mesh, p.topology, p.geometry, p.materials, p.face_kinds, options);
}

// Random free unknowns, zero elsewhere: every mode present, as in a running simulation.
inline std::vector<double> random_unknowns(dga::HostOperators const& host)
{
  std::vector<double> u(host.layout.size(), 0.0);
  std::uint64_t state = 12345;
  for (Index i = 0; i < host.layout.num_free; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    u[i] = static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53) - 0.5;
  }
  return u;
}

// Labels lead with the precision where it is not double.
inline std::string precision_label(kernels::StepPrecision precision)
{
  if (precision.fields == kernels::FieldPrecision::float32) return "single/";
  return precision.matrices == kernels::MatrixPrecision::float32 ? "mixed/" : "";
}

// Per-tet layout / dual-block order; Ampere and whole-step labels add the block pass.
template <class Layout>
std::string layout_label(bool by_degree)
{
  std::string const tet = std::is_same_v<Layout, Kokkos::LayoutRight> ? "right" : "left";
  return tet + (by_degree ? "/by-degree" : "/vertex-order");
}

template <class Space>
Timed base_member(Space const& space, std::string kernel, std::string layout)
{
  Timed t;
  t.kernel = std::move(kernel);
  t.layout = std::move(layout);
  t.backend = Space::name();
  t.threads = space.concurrency();
  t.fence = [space] { compat::fence(space, "dgatd::bench"); };
  return t;
}

template <class Space>
struct StreamMembers {
  Timed copy;
  Timed triad;
};

template <class Space>
StreamMembers<Space> stream_members(std::size_t array_bytes)
{
  Space const space;
  auto const arrays = std::make_shared<StreamArrays<Space>>(space, array_bytes);
  StreamMembers<Space> m{base_member(space, "stream_copy", "-"), base_member(space, "stream_triad", "-")};
  m.copy.launch = [arrays] { arrays->copy(); };
  m.copy.bytes = arrays->copy_bytes();
  m.copy.updates = arrays->size();
  m.triad.launch = [arrays] { arrays->triad(); };
  m.triad.bytes = arrays->triad_bytes();
  m.triad.flops = 2.0 * static_cast<double>(arrays->size());
  m.triad.updates = arrays->size();
  return m;
}

// One SpMV y <- y + a A x: a multiply-add per stored entry, a scale and an add per row.
template <class Matrix>
double spmv_flops(Matrix const& a)
{
  return 2.0 * static_cast<double>(a.nnz()) + 2.0 * static_cast<double>(a.numRows());
}

template <class Space>
Timed assembled_step(dga::AssembledOperators const& global, std::vector<double> const& edge_values, double dt)
{
  Space const space;
  using Leapfrog = kernels::AssembledLeapfrog<Space>;
  auto const leapfrog = std::make_shared<Leapfrog>(space, global);
  leapfrog->set_dt(dt);
  leapfrog->set_initial_field(edge_values);
  Timed t = base_member(space, "step_assembled", "csr");
  t.launch = [leapfrog] { leapfrog->step(); };
  t.bytes = Leapfrog::spmv_bytes(leapfrog->faraday_matrix()) + Leapfrog::spmv_bytes(leapfrog->ampere_matrix());
  t.flops = spmv_flops(leapfrog->faraday_matrix()) + spmv_flops(leapfrog->ampere_matrix());
  t.updates = leapfrog->faraday_matrix().numRows() + leapfrog->ampere_matrix().numRows();
  return t;
}

struct FractionedMembers {
  Timed faraday;
  Timed ampere;
  Timed step;
};

// Faraday, Ampere and the step of a leapfrog, labelled layout (per-tet layout and dual-block order)
// and layout/pass; the members share it.
template <class Leapfrog>
FractionedMembers members_of(std::shared_ptr<Leapfrog> const& leapfrog, std::string const& layout)
{
  using FieldScalar = typename Leapfrog::field_scalar;
  auto const& ops = leapfrog->operators();
  auto const curl_entries = static_cast<double>(ops.edge_curl_pieces.extent(0));
  std::string const with_pass = layout + "/" + kernels::block_pass_name(ops.block_pass);
  FractionedMembers m{base_member(leapfrog->space(), "faraday", layout),
                      base_member(leapfrog->space(), "ampere", with_pass),
                      base_member(leapfrog->space(), "step_fractioned", with_pass)};
  m.faraday.launch = [leapfrog] {
    kernels::faraday_update(leapfrog->space(), leapfrog->operators(), leapfrog->fields(),
                            static_cast<FieldScalar>(leapfrog->dt()));
  };
  m.faraday.bytes = kernels::faraday_bytes_moved<FieldScalar>(ops);
  // Per tet: 6 adds for the full-edge circulations, a signed add of each into its two faces, the
  // 4 x 4 product (16 multiply-adds), f^ -= dt s (a multiply and a subtraction per row), two signed
  // products and an add per edge piece.
  m.faraday.flops = 88.0 * ops.num_tets;
  m.faraday.updates = 4 * static_cast<std::int64_t>(ops.num_tets);

  m.ampere.launch = [leapfrog] {
    kernels::ampere_update(leapfrog->space(), leapfrog->operators(), leapfrog->fields(),
                           static_cast<FieldScalar>(leapfrog->dt()));
  };
  m.ampere.bytes = kernels::ampere_bytes_moved<FieldScalar>(ops);
  // An add per (edge, tet) curl entry, dt x per row and a multiply-add per block entry.
  m.ampere.flops =
      curl_entries + 2.0 * static_cast<double>(ops.block_matrix_entries) + static_cast<double>(ops.num_free);
  m.ampere.updates = ops.num_free;

  m.step.launch = [leapfrog] { leapfrog->step(); };
  m.step.bytes = m.faraday.bytes + m.ampere.bytes;
  m.step.flops = m.faraday.flops + m.ampere.flops;
  m.step.updates = m.faraday.updates + m.ampere.updates;
  return m;
}

// On a PEC box or mesh file's operators, from the given unknowns.
template <class Space, class Layout>
FractionedMembers fractioned_members(dga::HostOperators const& host, std::vector<double> const& unknowns, double dt,
                                     bool by_degree, kernels::AmpereBlockPass pass, kernels::StepPrecision precision,
                                     std::string const& prefix = "")
{
  auto const started = [&](auto leapfrog) {
    leapfrog->set_dt(dt);
    leapfrog->set_initial_field(unknowns);
    return members_of(leapfrog, prefix + precision_label(precision) + layout_label<Layout>(by_degree));
  };
  if (precision.fields == kernels::FieldPrecision::float32)
    return started(
        std::make_shared<solver::FractionedLeapfrog<Space, Layout, float>>(Space(), host, pass, precision.matrices));
  return started(std::make_shared<solver::FractionedLeapfrog<Space, Layout>>(Space(), host, pass, precision.matrices));
}

} // namespace kernel_bench_detail
} // namespace dgatd::perf
