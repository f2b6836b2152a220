#include "simulation_impl.hpp"

#include "dgatd/io/output/hdf5_writer.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/mesh/point_location.hpp"
#include "dgatd/random.hpp"
#include "dgatd/solver/stability.hpp"
#include "dgatd/solver/stencils.hpp"

#include <algorithm>
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
  d.owned_blocks = owned_blocks(part);
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
  auto const whole_layout = dga::dof_layout(whole.topology, whole.face_kinds);
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
// problem without operators, its part with operators, its formulation with its sources and the
// halo exchange, and the stability bound over all. Each stage that can fail on some ranks ends with
// all of them agreeing (parallel::together), so a user error stops every rank with one message.
void Simulation::set_up_over_ranks(mesh::Mesh* given_mesh)
{
  auto& s = *impl_;
  auto& communicator = *s.communicator;
  int const rank = communicator.rank(), ranks = communicator.size();
  auto together = [&](auto&& stage) { s.together(stage); };

  Stopwatch clock;
  std::vector<char> bytes;
  std::unique_ptr<io::Checkpoint> checkpoint;
  together([&] {
    s.refuse_unsupported(nullptr);
    if (rank != 0) return;
    if (!s.options.restart_from.empty()) checkpoint = s.read_restart_checkpoint();
    io::require_writable_output(s.output_path);
    auto mesh = s.load_ordered_mesh(given_mesh, checkpoint.get());
    s.refuse_unsupported(&mesh.groups);
    bytes = parallel::pack_mesh(mesh);
  });
  communicator.broadcast(bytes, 0);
  s.share_checkpoint(checkpoint);
  (given_mesh                                   ? s.times.setup
   : !checkpoint && mesh_made_on_load(s.config) ? s.times.meshing
                                                : s.times.reading) += clock.lap();

  std::vector<int> tet_part;
  together([&] {
    s.whole = make_problem(s.config, parallel::unpack_mesh(bytes), false);
    if (ranks > s.whole.mesh.num_tets())
      throw Error(s.whole.mesh.source,
                  std::to_string(ranks) + " ranks for " + std::to_string(s.whole.mesh.num_tets()) + " tets",
                  "run on at most " + std::to_string(s.whole.mesh.num_tets()) + " ranks");
    if (rank != 0) return;
    std::vector<int> weight(s.whole.mesh.tets.size(), 1);
    for (Index t = 0; t < s.whole.mesh.num_tets(); ++t)
      if (s.whole.materials.stretching.stretches(t)) weight[t] = stretched_tet_weight;
    tet_part = s.options.partitioner(s.whole.mesh, s.whole.topology, ranks, weight);
  });
  bytes.assign(reinterpret_cast<char const*>(tet_part.data()),
               reinterpret_cast<char const*>(tet_part.data() + tet_part.size()));
  communicator.broadcast(bytes, 0);
  tet_part.resize(bytes.size() / sizeof(int));
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(tet_part.data()));
  bytes = {};
  auto const owner = parallel::vertex_owners(s.whole.topology, tet_part, ranks);

  parallel::MeshPart part;
  std::vector<Index> probe_tets;
  together([&] {
    // A probe is read on the owner of its tet, which also steps the tets across that tet's faces:
    // their pieces are its dual edges.
    std::vector<Index> extra;
    for (auto const& probe : s.config.probes) {
      Index const tet = solver::containing_tet(s.whole.view(), "probe '" + probe.name + "'", probe.position);
      probe_tets.push_back(tet);
      if (parallel::tet_owner(s.whole.mesh, owner, tet) != rank) continue;
      extra.push_back(tet);
      for (Index f : s.whole.topology.tet_faces[tet])
        for (Index t : s.whole.topology.face_tets[f])
          if (t >= 0) extra.push_back(t);
    }
    part = parallel::make_mesh_part(s.whole.mesh, owner, rank, ranks, extra);
    s.problem = make_part_problem(s.whole, part);
  });
  s.hold_operator_terms_of_every_part();
  together([&] {
    s.make_formulation();
    s.add_sources_and_probes(part, probe_tets, owner);
  });
  s.distribute(part, parallel::global_edges(s.problem.topology, part.global_tet, s.whole.topology.tet_edges),
               parallel::global_faces(s.problem.topology, part.global_tet, s.whole.topology.tet_faces));
  s.finish_set_up_over_ranks(part, checkpoint.get(), clock);
}

// Each rank reads the manifest and its own part (simulation/part_files.hpp), never the whole mesh:
// the set-up of set_up_over_ranks, with what it took from the whole mesh found over the ranks
// instead (where probes and sources lie, the global numbering of the unknowns) and the mesh of the
// output gathered on rank 0.
void Simulation::set_up_from_parts()
{
  auto& s = *impl_;
  auto& communicator = *s.communicator;
  int const rank = communicator.rank(), ranks = communicator.size();
  auto together = [&](auto&& stage) { s.together(stage); };

  Stopwatch clock;
  std::unique_ptr<io::Checkpoint> checkpoint;
  StoredPart stored;
  together([&] {
    s.refuse_unsupported(nullptr);
    s.parts = read_manifest(s.config.mesh.parts);
    s.refuse_unsupported(&s.parts->groups);
    check_manifest(s.config, *s.parts, ranks, rank == 0);
    if (!s.options.restart_from.empty() && rank == 0) {
      checkpoint = s.read_restart_checkpoint();
      if (io::mesh_fingerprint(checkpoint->mesh) != s.parts->mesh_fingerprint)
        throw Error(s.options.restart_from, "was written on another mesh than the parts in " + s.parts->directory,
                    "restart with the parts of the mesh the checkpoint was written on, or start the run afresh");
    }
    if (rank == 0) io::require_writable_output(s.output_path);
    stored = read_part(*s.parts, rank);
  });
  s.share_checkpoint(checkpoint);
  s.times.reading += clock.lap();

  parallel::MeshPart part;
  WholeMeshFacts facts;
  LayersOverRanks layers;
  std::vector<Index> stored_tet, probe_tets, extra, source_items(s.config.sources.size(), -1);
  together([&] {
    // The part's complex with its reserve, where the probes and point sources are looked for, held
    // only while they are.
    auto const stored_topology = mesh::build_topology(stored.mesh);
    auto const stored_geometry = mesh::build_geometry(stored.mesh, stored_topology);
    mesh::MeshView const stored_view{stored.mesh, stored_topology, stored_geometry};
    std::vector<char> owns_stored_tet;
    for (Index t = 0; t < stored.mesh.num_tets(); ++t)
      owns_stored_tet.push_back(parallel::tet_owner(stored.mesh, stored.vertex_owner, t) == rank);
    auto const located = [&](std::string const& name, Vec3 const& x) {
      Index const tet =
          parallel::containing_tet_over_ranks(communicator, stored_view, stored.global_tet, owns_stored_tet, x);
      if (tet < 0) throw solver::outside_the_mesh(name, x);
      return tet;
    };
    // A probe is read on the owner of its tet, which also steps the tets across that tet's faces
    // (their pieces are its dual edges): from its reserve.
    for (auto const& probe : s.config.probes) {
      Index const tet = located("probe '" + probe.name + "'", probe.position);
      probe_tets.push_back(tet);
      auto const it = std::lower_bound(stored.global_tet.begin(), stored.global_tet.end(), tet);
      auto const t = static_cast<Index>(it - stored.global_tet.begin());
      if (it == stored.global_tet.end() || *it != tet || !owns_stored_tet[t]) continue;
      extra.push_back(t);
      for (Index f : stored_topology.tet_faces[t])
        for (Index across : stored_topology.face_tets[f])
          if (across >= 0) extra.push_back(across);
    }
    std::vector<Index> every_tet(stored.global_tet.size());
    std::iota(every_tet.begin(), every_tet.end(), Index(0));
    auto const stored_edge_global = parallel::global_edges(stored_topology, every_tet, stored.tet_edges);
    for (std::size_t k = 0; k < s.config.sources.size(); ++k) {
      auto const& source = s.config.sources[k];
      std::string const name = "source at " + s.config.where(source.line);
      if (source.kind == io::SourceKind::dipole) source_items[k] = located(name, source.position);
      if (source.kind == io::SourceKind::edge_current)
        source_items[k] =
            parallel::nearest_edge_over_ranks(communicator, stored_view, stored_edge_global, source.position);
    }
    // The matched layers from the stored parts, where every tet a rank owns has its four neighbours.
    auto const stored_face_global = parallel::global_faces(stored_topology, every_tet, stored.tet_faces);
    layers = layers_over_ranks(s.config, stored_view, s.parts->regions,
                               {communicator, owns_stored_tet, stored.global_tet, stored_face_global});
  });

  together([&] {
    part = parallel::make_mesh_part(stored.mesh, stored.vertex_owner, rank, ranks, extra);
    // From the stored part's numbering to the whole mesh's.
    stored_tet = part.global_tet;
    for (auto& v : part.global_vertex) v = stored.global_vertex[v];
    for (auto& t : part.global_tet) t = stored.global_tet[t];
    part.global_vertices = s.parts->vertices;
    facts.regions = s.parts->regions;
    facts.layers = layers.layers;
    facts.stretching.shift = layers.stretching.shift;
    for (Index t : stored_tet) {
      facts.face_interior.push_back(stored.face_interior[t]);
      if (!layers.stretching.empty()) facts.stretching.tet_jacobian.push_back(layers.stretching.tet_jacobian[t]);
    }
    s.problem = make_part_problem(s.config, part.mesh, facts);
  });
  s.hold_operator_terms_of_every_part();
  together([&] { s.make_formulation(); });
  auto const edge_global = parallel::global_edges(s.problem.topology, stored_tet, stored.tet_edges);
  auto const face_global = parallel::global_faces(s.problem.topology, stored_tet, stored.tet_faces);
  together([&] { s.add_sources_and_probes_of_parts(part, edge_global, probe_tets, source_items); });
  s.distribute(part, edge_global, face_global);
  s.part_ids = {edge_global, face_global, part.global_tet, part.owns_tet,
                rim_faces(s.problem.topology, &facts.face_interior)};
  s.plan_rim_faces(part);

  // The output's and the checkpoints' mesh, on rank 0.
  for (auto& i : part.global_triangle) i = stored.global_triangle[i];
  s.whole.mesh = parallel::gather_mesh(communicator, part, 0);
  if (rank == 0) {
    s.whole.mesh.groups = s.parts->groups;
    s.whole.mesh.source = s.parts->source;
    if (io::mesh_fingerprint(s.whole.mesh) != s.parts->mesh_fingerprint)
      throw std::logic_error("the mesh gathered from the parts differs from the one they were cut from");
  }
  s.finish_set_up_over_ranks(part, checkpoint.get(), clock);
}

} // namespace dgatd::simulation
