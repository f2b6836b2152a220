#include "simulation_impl.hpp"

#include "placement.hpp"

#include "dgatd/dga/local_steps.hpp"
#include "dgatd/io/output/hdf5_writer.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/random.hpp"
#include "dgatd/solver/stability.hpp"
#include "dgatd/solver/stencils.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::simulation {
namespace {

// The manifest against the configuration and the rank count; the mesh file's bytes on rank 0 only
// (check_file), which reads it through once.
void check_manifest(io::Config const& config, PartsManifest const& manifest, int ranks, bool check_file)
{
  std::string const again = "split it again: dgatd partition " + config.mesh.file + " -n " + std::to_string(ranks) +
                            " --scale " + format_number(config.mesh.scale) + " --ordering " +
                            mesh::ordering_name(config.mesh.ordering) + " -o " + manifest.directory;
  if (manifest.ranks != ranks)
    throw Error(manifest.directory,
                "holds parts for " + std::to_string(manifest.ranks) + " ranks, but the run has " +
                    std::to_string(ranks),
                "run under mpirun -n " + std::to_string(manifest.ranks) + ", or " + again);
  if (manifest.ordering != mesh::ordering_name(config.mesh.ordering) || manifest.scale != config.mesh.scale)
    throw Error(manifest.directory,
                "was split with ordering \"" + manifest.ordering + "\" and scale " + format_number(manifest.scale) +
                    ", the configuration asks for \"" + mesh::ordering_name(config.mesh.ordering) + "\" and " +
                    format_number(config.mesh.scale),
                again);
  if (!check_file) return;
  std::int64_t size = 0;
  if (mesh_file_hash(config.mesh.file, size) != manifest.mesh_file_hash || size != manifest.mesh_file_size)
    throw Error(manifest.directory, "was split from another mesh (" + manifest.mesh_file + ") than " + config.mesh.file,
                again);
}

// A probe is read on the owner of its tet t, which also steps the tets across t's faces (their
// pieces are its dual edges): t and those, in topology's numbering, added to extra.
void add_probe_tets(mesh::Topology const& topology, Index t, std::vector<Index>& extra)
{
  extra.push_back(t);
  for (Index f : topology.tet_faces[t])
    for (Index across : topology.face_tets[f])
      if (across >= 0) extra.push_back(across);
}

// The same from parts: tet is the whole mesh's, found in the stored part (with its reserve) where this
// rank owns it.
void add_probe_reserve(PartFromDiskPlacement const& placement, Index tet, std::vector<Index>& extra)
{
  auto const& stored_tets = placement.stored().global_tet;
  auto const it = std::lower_bound(stored_tets.begin(), stored_tets.end(), tet);
  auto const t = static_cast<Index>(it - stored_tets.begin());
  if (it != stored_tets.end() && *it == tet && placement.owns_stored_tet()[t])
    add_probe_tets(placement.stored_view().topology, t, extra);
}

// What METIS balances (partition::partition_tets): each tet's work per coarse step, a matched
// layer's tet weighing stretched_tet_weight. With local steps each level's steps end in a halo
// exchange every rank waits for, so each level's tets are balanced on their own, one constraint per
// level, as dga::expected_tet_levels expects the levels (the levels' margin is the checkpoint's on a
// restart, 1 otherwise: the scheme's spectrum, which can widen it, needs the operators the parts are
// for). A level with under min_level_work_share of the tet updates joins the next coarser level's
// constraint: its imbalance can cost at most that share, and METIS cuts more to balance each.
struct TetWeights {
  std::vector<int> weight;
  int constraints = 1;
};

constexpr double min_level_work_share = 0.02;

TetWeights tet_weights(io::Config const& config, Problem const& whole, double margin)
{
  auto const tets = static_cast<std::size_t>(whole.mesh.num_tets());
  std::vector<int> cost(tets, 1);
  std::vector<char> pinned(tets, 0);
  for (std::size_t t = 0; t < tets; ++t)
    if (whole.materials.stretching.stretches(static_cast<Index>(t))) {
      cost[t] = stretched_tet_weight;
      pinned[t] = 1;
    }
  if (config.time.local_steps < 2) return {cost, 1};

  auto steps = dga::tet_steps(whole.view(), whole.materials.eps, whole.materials.mu);
  double const smallest = *std::min_element(steps.begin(), steps.end());
  for (double& step : steps) step = std::max(smallest, step / margin);
  auto const level = dga::expected_tet_levels(whole.topology, steps, config.time.local_steps, pinned);
  int const levels = 1 + *std::max_element(level.begin(), level.end());
  std::vector<double> updates(static_cast<std::size_t>(levels), 0);
  for (std::size_t t = 0; t < tets; ++t) updates[level[t]] += std::ldexp(cost[t], level[t]);
  double const total = std::accumulate(updates.begin(), updates.end(), 0.0);
  // Per level its constraint and the level that constraint starts at (a joined level's tets weigh
  // their steps relative to that level's); levels before the first with tets have none to weigh.
  std::vector<int> constraint(static_cast<std::size_t>(levels)), first(static_cast<std::size_t>(levels));
  int constraints = 0, first_of_current = 0;
  for (int k = 0; k < levels; ++k) {
    if (constraints == 0 ? updates[k] > 0 : updates[k] >= min_level_work_share * total) {
      ++constraints;
      first_of_current = k;
    }
    constraint[k] = std::max(0, constraints - 1);
    first[k] = first_of_current;
  }
  TetWeights weights{std::vector<int>(tets * static_cast<std::size_t>(constraints), 0), constraints};
  for (std::size_t t = 0; t < tets; ++t)
    weights.weight[t * constraints + constraint[level[t]]] = cost[t] << (level[t] - first[level[t]]);
  return weights;
}

} // namespace

// The halo plan, what this rank owns, and the stability bound's start field of the one-process run:
// the random value of each free unknown at its place in the whole mesh's numbering. edge_global and
// face_global: the global id of each local edge and face.
void Simulation::Impl::distribute(parallel::MeshPart const& part, std::vector<Index> const& edge_global,
                                  std::vector<Index> const& face_global)
{
  auto const& topology = problem.topology;
  auto const& layout = problem.operators.layout;
  solver::Distribution d;
  d.communicator = communicator;
  d.halo = parallel::make_halo_plan(*communicator, part, topology, layout.dof_of_half_edge, layout.num_free);
  d.owned_blocks = owned_blocks(problem, part);
  d.owned_tets = part.owns_tet;

  auto numbering = parts ? number_over_ranks(part, d.halo) : number_from_whole(part, edge_global);
  d.unknown_global = std::move(numbering.global);
  d.lanczos_start.assign(layout.size(), 0.0);
  d.owned_unknowns.assign(layout.size(), 0);
  for (Index v = 0; v < topology.num_vertices; ++v)
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h) {
      Index const dof = layout.dof_of_half_edge[h];
      Index const global_dof = d.unknown_global[dof];
      if (global_dof < 0) continue;
      d.owned_unknowns[dof] = part.owns_vertex[v];
      if (dof < layout.num_free && global_dof < numbering.free)
        d.lanczos_start[dof] = nth_uniform_minus_one_to_one(solver::stability_seed, global_dof);
    }
  d.global_unknowns = numbering.size;
  whole_free_unknowns = numbering.free;
  d.tet_global = part.global_tet;
  for (auto const& tet : problem.mesh.tets)
    d.owned_tet_vertices.push_back(
        {part.owns_vertex[tet[0]], part.owns_vertex[tet[1]], part.owns_vertex[tet[2]], part.owns_vertex[tet[3]]});
  auto const counts = whole_counts();
  d.global_tets = counts.tets;
  d.overlap_halo = config.solver.overlap_halo;
  // An edge or face belongs to the owner of its lowest vertex, which holds every tet around it.
  for (Index e = 0; e < topology.num_edges(); ++e)
    d.owned_edge_global.push_back(part.owns_vertex[topology.edge_vertices[e][0]] ? edge_global[e] : -1);
  for (Index f = 0; f < topology.num_faces(); ++f)
    d.owned_face_global.push_back(part.owns_vertex[topology.face_vertices[f][0]] ? face_global[f] : -1);
  d.global_edges = counts.edges;
  d.global_faces = counts.faces;
  formulation->distribute(std::move(d));
}

// With the whole mesh, rank 0 averages the whole fields gathered there. From parts, each rank
// averages over its own tets with its part's fields, the rim faces' from their owners (halved, as
// the one-process average halves a face of two tets), and rank 0 gathers the tets' rows: no rank
// holds an array over the whole mesh but rank 0.
void Simulation::Impl::tet_fields(std::vector<Vec3>& e, std::vector<Vec3>& h) const
{
  e.clear();
  h.clear();
  if (!parts) {
    auto const fields = formulation->shared_fields();
    if (communicator->rank() == 0)
      solver::tet_average_fields(output_problem().view(), fields.edge_circulations, fields.face_circulations, e, h);
    return;
  }
  auto fields = formulation->part_fields();
  auto& faces = fields.face_circulations;
  auto const& rim = rim_faces_over_ranks;
  std::vector<std::vector<std::int64_t>> answers(rim.answered.size());
  for (std::size_t r = 0; r < answers.size(); ++r)
    for (Index f : rim.answered[r]) parallel::append_number(answers[r], faces[f]);
  auto const received = communicator->all_to_all(answers);
  for (std::size_t r = 0; r < received.size(); ++r)
    for (std::size_t k = 0; k < received[r].size(); ++k)
      faces[rim.asked[r][k]] = 0.5 * parallel::number_at(received[r][k]);
  std::vector<Vec3> local_e, local_h;
  solver::tet_average_fields(problem.view(), fields.edge_circulations, faces, local_e, local_h);
  auto const whole = [&](std::vector<Vec3> const& local, std::vector<Vec3>& rows) {
    std::vector<double> flat;
    for (auto const& v : local) flat.insert(flat.end(), v.begin(), v.end());
    auto const gathered = parallel::gather_owned(*communicator, flat, part_ids.tets, part_ids.owns_tet,
                                                 static_cast<std::size_t>(parts->tets), 0, 3);
    for (std::size_t t = 0; 3 * t < gathered.size(); ++t)
      rows.push_back({gathered[3 * t], gathered[3 * t + 1], gathered[3 * t + 2]});
  };
  whole(local_e, e);
  whole(local_h, h);
}

void Simulation::Impl::plan_rim_faces(parallel::MeshPart const& part)
{
  auto const& topology = problem.topology;
  auto const ranks = static_cast<std::size_t>(communicator->size());
  std::vector<std::vector<std::int64_t>> asks(ranks);
  rim_faces_over_ranks.asked.assign(ranks, {});
  for (Index f = 0; f < topology.num_faces(); ++f)
    if (part_ids.rim_face[f]) {
      auto const owner = static_cast<std::size_t>(part.vertex_owner[topology.face_vertices[f][0]]);
      asks[owner].push_back(part_ids.faces[f]);
      rim_faces_over_ranks.asked[owner].push_back(f);
    }
  auto const asked_here = communicator->all_to_all(asks);
  std::vector<std::pair<Index, Index>> by_global;
  for (Index f = 0; f < topology.num_faces(); ++f) by_global.emplace_back(part_ids.faces[f], f);
  std::sort(by_global.begin(), by_global.end());
  rim_faces_over_ranks.answered.assign(ranks, {});
  for (std::size_t r = 0; r < ranks; ++r)
    for (std::int64_t asked : asked_here[r]) {
      auto const global = static_cast<Index>(asked);
      auto const it = std::lower_bound(by_global.begin(), by_global.end(), std::make_pair(global, Index(-1)));
      if (it == by_global.end() || it->first != global)
        throw std::logic_error("a rank asked for a rim face that the part of its vertex's owner does not hold");
      rim_faces_over_ranks.answered[r].push_back(it->second);
    }
}

// Through the whole problem's layout (a run that holds the whole mesh).
Simulation::Impl::Numbering Simulation::Impl::number_from_whole(parallel::MeshPart const& part,
                                                                std::vector<Index> const& edge_global) const
{
  auto const& topology = problem.topology;
  auto const& layout = problem.operators.layout;
  auto const whole_layout = dga::dof_layout(whole.topology, whole.face_kinds, whole.materials.pec_edges);
  Numbering n;
  n.global.assign(layout.size(), -1);
  for (Index v = 0; v < topology.num_vertices; ++v)
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h) {
      Index const dof = layout.dof_of_half_edge[h];
      if (dof == layout.zero_slot) continue;
      Index const global_dof = whole_layout.dof_of_half_edge[mesh::half_edge_of(
          whole.topology, edge_global[topology.v2e[h]], part.global_vertex[v])];
      if (global_dof != whole_layout.zero_slot) n.global[dof] = global_dof;
    }
  n.free = whole_layout.num_free;
  n.size = whole_layout.size();
  return n;
}

// Without the whole mesh: the one-process layout numbers the free half-edges block by block in vertex
// order, each block's in the order of its edges, as a part's layout numbers those of a block it owns
// (its local ids keep the global order), and then the prescribed half-edges (a prescribed port's) in
// half-edge order, by vertex and each vertex's in the order of its edges. So a vertex's first free
// and first prescribed unknowns are sums of the free and prescribed degrees of the vertices before it
// (arrays over the whole mesh's vertices, summed over the ranks). A halo block takes its numbers from
// its owner through the halo exchange. A prescribed half-edge at a vertex owned elsewhere keeps none:
// the port sets it every step, and a checkpoint takes each unknown from the owner of its vertex.
Simulation::Impl::Numbering Simulation::Impl::number_over_ranks(parallel::MeshPart const& part,
                                                                parallel::HaloPlan const& halo) const
{
  auto const& topology = problem.topology;
  auto const& layout = problem.operators.layout;
  auto const prescribed = [&](Index h) {
    Index const dof = layout.dof_of_half_edge[h];
    return dof >= layout.num_free && dof != layout.zero_slot;
  };
  std::vector<double> degrees(2 * part.global_vertex.size(), 0.0); // free, prescribed
  for (Index b = 0; b < layout.num_blocks(); ++b) degrees[2 * layout.block_vertex[b]] = layout.block_size(b);
  for (Index v = 0; v < topology.num_vertices; ++v)
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h)
      degrees[2 * v + 1] += prescribed(h) ? 1 : 0;
  auto const whole_degrees = parallel::sum_owned(*communicator, degrees, part.global_vertex, part.owns_vertex,
                                                 static_cast<std::size_t>(part.global_vertices), 2);
  std::vector<Index> first(part.global_vertex.size(), 0), first_prescribed(part.global_vertex.size(), 0);
  Index running = 0, running_prescribed = 0;
  std::size_t local = 0;
  for (std::size_t v = 0; 2 * v < whole_degrees.size(); ++v) {
    for (; local < part.global_vertex.size() && part.global_vertex[local] == static_cast<Index>(v); ++local) {
      first[local] = running;
      first_prescribed[local] = running_prescribed;
    }
    running += static_cast<Index>(whole_degrees[2 * v]);
    running_prescribed += static_cast<Index>(whole_degrees[2 * v + 1]);
  }
  Numbering n;
  n.free = running;
  n.size = running + running_prescribed + 1;
  // As doubles (exact below 2^53) through the halo's buffers: -1 for the zero slot.
  std::vector<double> number(layout.size(), -1.0);
  for (Index b = 0; b < layout.num_blocks(); ++b) {
    Index const v = layout.block_vertex[b];
    if (!part.owns_vertex[v]) continue;
    for (Index dof = layout.block_offset[b]; dof < layout.block_offset[b + 1]; ++dof)
      number[dof] = static_cast<double>(first[v] + (dof - layout.block_offset[b]));
  }
  for (Index v = 0; v < topology.num_vertices; ++v) {
    if (!part.owns_vertex[v]) continue;
    Index next = n.free + first_prescribed[v];
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h)
      if (prescribed(h)) number[layout.dof_of_half_edge[h]] = static_cast<double>(next++);
  }
  std::vector<double> send, receive(halo.receive_dofs.size());
  for (Index dof : halo.send_dofs) send.push_back(number[dof]);
  communicator->start_exchange(halo.neighbours, send.data(), receive.data());
  communicator->finish_exchange();
  for (std::size_t k = 0; k < receive.size(); ++k) number[halo.receive_dofs[k]] = receive[k];

  n.global.assign(number.size(), -1);
  for (std::size_t dof = 0; dof < number.size(); ++dof) n.global[dof] = static_cast<Index>(number[dof]);
  return n;
}

// Rank 0 reads (or generates) and orders the mesh and splits its tets; every rank builds the whole
// problem without operators and its part with operators. Each stage that can fail on some ranks ends
// with all of them agreeing (parallel::together), so a user error stops every rank with one message.
std::unique_ptr<Placement> Simulation::Impl::place_over_ranks(mesh::Mesh* given_mesh,
                                                              std::unique_ptr<io::Checkpoint>& checkpoint,
                                                              Stopwatch& clock)
{
  int const rank = communicator->rank(), ranks = communicator->size();
  std::vector<char> bytes;
  together([&] {
    refuse_unsupported();
    if (rank != 0) return;
    if (!options.restart_from.empty()) checkpoint = read_restart_checkpoint();
    io::require_writable_output(output_path);
    auto mesh = load_ordered_mesh(given_mesh, checkpoint.get());
    bytes = parallel::pack_mesh(mesh);
  });
  communicator->broadcast(bytes, 0);
  share_checkpoint(checkpoint);
  (given_mesh ? times.setup : !checkpoint && mesh_made_on_load(config) ? times.meshing : times.reading) += clock.lap();

  std::vector<int> tet_part;
  together([&] {
    whole = make_problem(config, parallel::unpack_mesh(bytes), false);
    if (ranks > whole.mesh.num_tets())
      throw Error(whole.mesh.source,
                  std::to_string(ranks) + " ranks for " + std::to_string(whole.mesh.num_tets()) + " tets",
                  "run on at most " + std::to_string(whole.mesh.num_tets()) + " ranks");
    if (rank != 0) return;
    auto const weights = tet_weights(config, whole, checkpoint ? checkpoint->local_step_margin : 1);
    tet_part = options.partitioner(whole.mesh, whole.topology, ranks, weights.weight, weights.constraints);
  });
  bytes.assign(reinterpret_cast<char const*>(tet_part.data()),
               reinterpret_cast<char const*>(tet_part.data() + tet_part.size()));
  communicator->broadcast(bytes, 0);
  tet_part.resize(bytes.size() / sizeof(int));
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(tet_part.data()));
  bytes = {};
  auto const owner = parallel::vertex_owners(whole.topology, tet_part, ranks);

  std::unique_ptr<Placement> placement;
  together([&] {
    std::vector<Index> extra, probe_tets;
    for (auto const& probe : config.probes) {
      Index const tet = solver::containing_tet(whole.view(), "probe '" + probe.name + "'", probe.position);
      probe_tets.push_back(tet);
      if (parallel::tet_owner(whole.mesh, owner, tet) == rank) add_probe_tets(whole.topology, tet, extra);
    }
    auto const far_field_tets = far_field_extra_tets(config, whole, owner, rank);
    extra.insert(extra.end(), far_field_tets.begin(), far_field_tets.end());
    auto part = parallel::make_mesh_part(whole.mesh, owner, rank, ranks, extra);
    problem = make_part_problem(whole, part);
    placement = part_of_whole_placement(problem, whole, std::move(part), std::move(probe_tets), *communicator);
  });
  return placement;
}

// Each rank reads the manifest and its own part (simulation/part_files.hpp), never the whole mesh:
// the set-up of place_over_ranks, with what it took from the whole mesh found over the ranks instead
// (where probes and sources lie, the global numbering of the unknowns) and the mesh of the output
// gathered on rank 0.
std::unique_ptr<Placement> Simulation::Impl::place_from_parts(std::unique_ptr<io::Checkpoint>& checkpoint,
                                                              Stopwatch& clock)
{
  int const rank = communicator->rank(), ranks = communicator->size();
  StoredPart stored;
  together([&] {
    refuse_unsupported();
    parts = read_manifest(config.mesh.parts);
    check_manifest(config, *parts, ranks, rank == 0);
    if (!options.restart_from.empty() && rank == 0) {
      checkpoint = read_restart_checkpoint();
      if (io::mesh_fingerprint(checkpoint->mesh) != parts->mesh_fingerprint)
        throw Error(options.restart_from,
                    "was written on another mesh, or another numbering of its tets, than the parts in " +
                        parts->directory,
                    "restart with the parts of the mesh the checkpoint was written on (a run of one process with "
                    "local steps numbers its tets by level: continue it without [mesh] parts), or start the run "
                    "afresh");
    }
    if (rank == 0) io::require_writable_output(output_path);
    stored = read_part(*parts, rank);
  });
  share_checkpoint(checkpoint);
  times.reading += clock.lap();

  std::unique_ptr<PartFromDiskPlacement> placement;
  std::vector<Index> probe_tets, extra;
  LayersOverRanks layers;
  together([&] {
    placement = std::make_unique<PartFromDiskPlacement>(problem, config, *parts, std::move(stored), *communicator);
    for (auto const& probe : config.probes) {
      probe_tets.push_back(placement->whole_tet("probe '" + probe.name + "'", probe.position));
      add_probe_reserve(*placement, probe_tets.back(), extra);
    }
    // The matched layers from the stored parts, where every tet a rank owns has its four neighbours.
    layers = layers_over_ranks(
        config, placement->stored_view(), parts->regions,
        {*communicator, placement->owns_stored_tet(), placement->stored().global_tet, placement->stored_face_global()});
  });
  together([&] {
    auto const far_field_tets = placement->place_far_fields();
    extra.insert(extra.end(), far_field_tets.begin(), far_field_tets.end());
  });

  parallel::MeshPart part;
  WholeMeshFacts facts;
  std::vector<Index> stored_tet;
  SheetPieces sheet_pieces;
  together([&] {
    auto const& stored = placement->stored();
    part = parallel::make_mesh_part(stored.mesh, stored.vertex_owner, rank, ranks, extra);
    // From the stored part's numbering to the whole mesh's.
    stored_tet = part.global_tet;
    for (auto& v : part.global_vertex) v = stored.global_vertex[v];
    for (auto& t : part.global_tet) t = stored.global_tet[t];
    for (auto& i : part.global_triangle) i = stored.global_triangle[i];
    part.global_vertices = parts->vertices;
    facts.regions = parts->regions;
    facts.layers = layers.layers;
    facts.stretching.shift = layers.stretching.shift;
    for (Index t : stored_tet) {
      facts.face_interior.push_back(stored.face_interior[t]);
      if (!layers.stretching.empty()) facts.stretching.tet_jacobian.push_back(layers.stretching.tet_jacobian[t]);
    }
    sheet_pieces = lumped_sheet_pieces(config, part, facts);
  });
  together([&] {
    facts.sheets = lumped_sheets_over_ranks(sheet_pieces, *communicator);
    problem = make_part_problem(config, part.mesh, facts);
  });
  placement->hold_part(std::move(part), stored_tet, std::move(probe_tets));
  auto const& held = *placement->part();
  part_ids = {placement->edge_global(), placement->face_global(), held.global_tet, held.owns_tet,
              rim_faces(problem.topology, &facts.face_interior)};
  plan_rim_faces(held);

  // The output's and the checkpoints' mesh, on rank 0.
  whole.mesh = parallel::gather_mesh(*communicator, held, 0);
  if (rank == 0) {
    whole.mesh.groups = parts->groups;
    whole.mesh.source = parts->source;
    if (io::mesh_fingerprint(whole.mesh) != parts->mesh_fingerprint)
      throw std::logic_error("the mesh gathered from the parts differs from the one they were cut from");
  }
  return placement;
}

} // namespace dgatd::simulation
