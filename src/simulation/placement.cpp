#include "placement.hpp"

#include "dgatd/io/input/config.hpp"
#include "dgatd/mesh/point_location.hpp"
#include "dgatd/solver/stencils.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace dgatd::simulation {
namespace {

// A problem the placement does not own (the whole one, held by the simulation).
std::shared_ptr<Problem const> borrowed(Problem const& problem)
{
  return std::shared_ptr<Problem const>(std::shared_ptr<Problem const>{}, &problem);
}

std::vector<char> tets_in(mesh::Mesh const& mesh, std::vector<int> const& tags)
{
  std::vector<char> in(mesh.tets.size(), 0);
  for (std::size_t t = 0; t < in.size(); ++t)
    in[t] = std::find(tags.begin(), tags.end(), mesh.tet_region[t]) != tags.end();
  return in;
}

bool holds(std::vector<Index> const& ids, Index id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); }

class WholeMesh final : public Placement {
public:
  explicit WholeMesh(Problem const& problem) : Placement(problem) {}

  int volume_tag(std::string const& name, std::string const& table, std::string const& where) const override
  {
    return simulation::volume_tag(problem_.mesh, name, 0, table, where);
  }
  bool steps_point(std::string const&, Vec3 const&) const override { return true; }
  bool steps_edge_nearest(Vec3 const&) const override { return true; }
  std::shared_ptr<Problem const> around_surface(int) const override { return borrowed(problem_); }
  TotalField total_field(std::vector<int> const& tags, solver::PlaneWaveSpec const& spec) const override
  {
    TotalField total;
    total.tets = tets_in(problem_.mesh, tags);
    total.vertices = solver::total_field_vertices(problem_.mesh, total.tets);
    total.surface = solver::tfsf_surface(problem_.view(), problem_.materials, problem_.face_kinds, total.tets,
                                         total.vertices, spec);
    return total;
  }
};

class PartOfWhole final : public Placement {
public:
  PartOfWhole(Problem const& problem, Problem const& whole, parallel::MeshPart part, std::vector<Index> probe_tets,
              parallel::Communicator const& communicator)
      : Placement(problem, &communicator), whole_(whole)
  {
    auto edge_global = parallel::global_edges(problem.topology, part.global_tet, whole.topology.tet_edges);
    auto face_global = parallel::global_faces(problem.topology, part.global_tet, whole.topology.tet_faces);
    set_part(std::move(part), std::move(edge_global), std::move(face_global), std::move(probe_tets));
  }

  int volume_tag(std::string const& name, std::string const& table, std::string const& where) const override
  {
    return simulation::volume_tag(whole_.mesh, name, 0, table, where);
  }
  int surface_tag(std::string const& name, std::string const& where) const override
  {
    return simulation::surface_tag(whole_.mesh, name, where);
  }
  bool steps_point(std::string const& name, Vec3 const& x) const override
  {
    return part()->local_tet(solver::containing_tet(whole_.view(), name, x)) >= 0;
  }
  bool steps_edge_nearest(Vec3 const& x) const override
  {
    return holds(edge_global(), mesh::nearest_edge(whole_.view(), x));
  }
  std::shared_ptr<Problem const> around_surface(int) const override { return borrowed(whole_); }
  TotalField total_field(std::vector<int> const& tags, solver::PlaneWaveSpec const& spec) const override
  {
    auto const whole_tets = tets_in(whole_.mesh, tags);
    auto const whole_vertices = solver::total_field_vertices(whole_.mesh, whole_tets);
    TotalField total;
    total.surface =
        solver::tfsf_surface(whole_.view(), whole_.materials, whole_.face_kinds, whole_tets, whole_vertices, spec);
    total.tets = tets_in(problem_.mesh, tags);
    for (Index v : part()->global_vertex) total.vertices.push_back(whole_vertices[v]);
    return total;
  }

private:
  Problem const& whole_;
};

} // namespace

int Placement::surface_tag(std::string const& name, std::string const& where) const
{
  return simulation::surface_tag(problem_.mesh, name, where);
}

// A probe's tet is in the part of its owner, which steps it (MeshPart::owns_tet).
bool Placement::reads_probe(std::size_t k) const
{
  if (!part_) return true;
  Index const t = part_->local_tet(probe_tets_[k]);
  return t >= 0 && part_->owns_tet[t];
}

std::vector<char> Placement::owned_blocks() const
{
  return part_ ? simulation::owned_blocks(problem_, *part_) : std::vector<char>{};
}

double Placement::largest(double value) const
{
  if (!communicator_) return value;
  for (double other : parallel::all_gathered(*communicator_, std::vector<double>{value}))
    value = std::max(value, other);
  return value;
}

void Placement::set_part(parallel::MeshPart part, std::vector<Index> edge_global, std::vector<Index> face_global,
                         std::vector<Index> probe_tets)
{
  part_ = std::move(part);
  edge_global_ = std::move(edge_global);
  face_global_ = std::move(face_global);
  probe_tets_ = std::move(probe_tets);
}

std::vector<char> owned_blocks(Problem const& problem, parallel::MeshPart const& part)
{
  std::vector<char> owned;
  for (Index v : problem.operators.layout.block_vertex) owned.push_back(part.owns_vertex[v]);
  return owned;
}

std::unique_ptr<Placement> whole_mesh_placement(Problem const& problem) { return std::make_unique<WholeMesh>(problem); }

std::unique_ptr<Placement> part_of_whole_placement(Problem const& problem, Problem const& whole,
                                                   parallel::MeshPart part, std::vector<Index> probe_tets,
                                                   parallel::Communicator const& communicator)
{
  return std::make_unique<PartOfWhole>(problem, whole, std::move(part), std::move(probe_tets), communicator);
}

PartFromDiskPlacement::PartFromDiskPlacement(Problem const& problem, io::Config const& config,
                                             PartsManifest const& manifest, StoredPart stored,
                                             parallel::Communicator const& communicator)
    : Placement(problem, &communicator), config_(config), manifest_(manifest), stored_(std::move(stored)),
      stored_topology_(mesh::build_topology(stored_.mesh)),
      stored_geometry_(mesh::build_geometry(stored_.mesh, stored_topology_))
{
  for (Index t = 0; t < stored_.mesh.num_tets(); ++t)
    owns_stored_tet_.push_back(parallel::tet_owner(stored_.mesh, stored_.vertex_owner, t) == communicator.rank());
  std::vector<Index> every_tet(stored_.global_tet.size());
  std::iota(every_tet.begin(), every_tet.end(), Index(0));
  stored_edge_global_ = parallel::global_edges(stored_topology_, every_tet, stored_.tet_edges);
  stored_face_global_ = parallel::global_faces(stored_topology_, every_tet, stored_.tet_faces);
}

Index PartFromDiskPlacement::whole_tet(std::string const& name, Vec3 const& x) const
{
  Index const tet =
      parallel::containing_tet_over_ranks(*communicator_, stored_view(), stored_.global_tet, owns_stored_tet_, x);
  if (tet < 0) throw solver::outside_the_mesh(name, x);
  return tet;
}

void PartFromDiskPlacement::hold_part(parallel::MeshPart part, std::vector<Index> const& stored_tet,
                                      std::vector<Index> probe_tets)
{
  auto edge_global = parallel::global_edges(problem_.topology, stored_tet, stored_.tet_edges);
  auto face_global = parallel::global_faces(problem_.topology, stored_tet, stored_.tet_faces);
  set_part(std::move(part), std::move(edge_global), std::move(face_global), std::move(probe_tets));
}

int PartFromDiskPlacement::volume_tag(std::string const& name, std::string const& table, std::string const& where) const
{
  return simulation::volume_tag(problem_.mesh, name, 0, table, where, &manifest_.regions);
}

bool PartFromDiskPlacement::steps_point(std::string const& name, Vec3 const& x) const
{
  return part()->local_tet(whole_tet(name, x)) >= 0;
}

bool PartFromDiskPlacement::steps_edge_nearest(Vec3 const& x) const
{
  return holds(edge_global(), parallel::nearest_edge_over_ranks(*communicator_, stored_view(), stored_edge_global_, x));
}

// The surface and the tets beside it gathered on every rank from their owners.
std::shared_ptr<Problem const> PartFromDiskPlacement::around_surface(int tag) const
{
  auto surface = std::make_shared<Problem>();
  surface->mesh = parallel::gather_surface(*communicator_, *part(), problem_.topology, tag);
  surface->mesh.groups = problem_.mesh.groups;
  surface->mesh.source = problem_.mesh.source;
  surface->topology = mesh::build_topology(surface->mesh);
  surface->geometry = mesh::build_geometry(surface->mesh, surface->topology);
  surface->materials = materials_of(config_, surface->mesh, &manifest_.regions);
  return surface;
}

// A vertex is in the total field when one of its tets is: its owner, which holds them all, says; the
// surface is checked around the vertices each rank owns.
TotalField PartFromDiskPlacement::total_field(std::vector<int> const& tags, solver::PlaneWaveSpec const& spec) const
{
  TotalField total;
  total.tets = tets_in(problem_.mesh, tags);
  auto const& part = *this->part();
  total.vertices = parallel::from_owners(*communicator_, part, solver::total_field_vertices(problem_.mesh, total.tets));
  solver::SurfaceOverRanks const ranks{*communicator_, part.owns_vertex, part.global_tet, part.global_vertex};
  total.surface = solver::tfsf_surface(problem_.view(), problem_.materials, problem_.face_kinds, total.tets,
                                       total.vertices, spec, &ranks);
  return total;
}

} // namespace dgatd::simulation
