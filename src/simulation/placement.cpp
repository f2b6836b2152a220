#include "placement.hpp"

#include "dgatd/io/input/config.hpp"
#include "dgatd/mesh/point_location.hpp"
#include "dgatd/solver/stencils.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
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

// The local face of each of globals, faces of tets the part owns, from face_global (each local face's
// global id).
std::vector<Index> local_faces(std::vector<Index> const& face_global, std::vector<Index> const& globals)
{
  std::vector<std::pair<Index, Index>> local_face; // global, local
  for (std::size_t f = 0; f < face_global.size(); ++f) local_face.emplace_back(face_global[f], static_cast<Index>(f));
  std::sort(local_face.begin(), local_face.end());
  std::vector<Index> faces;
  for (Index global : globals) {
    auto const it = std::lower_bound(local_face.begin(), local_face.end(), std::pair{global, Index(-1)});
    if (it == local_face.end() || it->first != global)
      throw std::logic_error("a part lacks a far-field face of a tet it owns");
    faces.push_back(it->second);
  }
  return faces;
}

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

  solver::FarFieldSides far_field_sides(int tag, std::string const& name) const override
  {
    auto const whole_sides = solver::far_field_sides(whole_.view(), whole_.materials, tag, name);
    solver::FarFieldSides sides;
    sides.eps = whole_sides.eps;
    sides.mu = whole_sides.mu;
    sides.whole_faces = whole_sides.whole_faces;
    std::vector<Index> global_faces;
    for (std::size_t k = 0; k < whole_sides.faces.size(); ++k) {
      Index const inside = part()->local_tet(whole_sides.inside[k]);
      if (inside < 0 || !part()->owns_tet[inside]) continue;
      global_faces.push_back(whole_sides.faces[k]);
      sides.inside.push_back(inside);
      sides.places.push_back(whole_sides.places[k]);
    }
    sides.faces = local_faces(face_global(), global_faces);
    return sides;
  }

private:
  Problem const& whole_;
};

} // namespace

solver::FarFieldSides Placement::far_field_sides(int tag, std::string const& name) const
{
  return solver::far_field_sides(problem_.view(), problem_.materials, tag, name);
}

std::vector<Index> far_field_extra_tets(io::Config const& config, Problem const& whole, std::vector<int> const& owner,
                                        int rank)
{
  std::vector<Index> extra;
  for (auto const& far_field : config.farfields) {
    int const tag = simulation::surface_tag(whole.mesh, far_field.surface, config.where(far_field.line));
    auto const sides = solver::far_field_sides(whole.view(), whole.materials, tag, far_field.surface);
    for (std::size_t k = 0; k < sides.faces.size(); ++k) {
      if (parallel::tet_owner(whole.mesh, owner, sides.inside[k]) != rank) continue;
      for (Index t : whole.topology.face_tets[sides.faces[k]])
        if (t != sides.inside[k]) extra.push_back(t);
    }
  }
  return extra;
}

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

std::vector<Index> Placement::places_among_ranks(std::vector<Index> const& items, Index& whole) const
{
  std::vector<Index> all = items;
  if (communicator_) {
    all.clear();
    std::vector<std::int64_t> const mine(items.begin(), items.end());
    for (std::int64_t item : parallel::all_gathered(*communicator_, mine)) all.push_back(static_cast<Index>(item));
  }
  std::sort(all.begin(), all.end());
  whole = static_cast<Index>(all.size());
  std::vector<Index> places;
  for (Index item : items)
    places.push_back(static_cast<Index>(std::lower_bound(all.begin(), all.end(), item) - all.begin()));
  return places;
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

// The regions apart from a far-field surface over the stored parts, as far_field_sides finds them on
// the whole mesh: each stored tet's region is named by the lowest global tet in it, found by joining
// the tets across faces off the surface within each part, and then, round after round until no name
// changes, each reserve tet's name with its owner's.
std::vector<Index> PartFromDiskPlacement::place_far_fields()
{
  auto const& topology = stored_topology_;
  auto const& communicator = *communicator_;
  auto const ranks = static_cast<std::size_t>(communicator.size());
  std::vector<Index> extra;
  for (auto const& far_field : config_.farfields) {
    auto const& name = far_field.surface;
    int const tag = simulation::surface_tag(stored_.mesh, name, config_.where(far_field.line));
    std::optional<std::pair<std::string, std::string>> error; // thrown once every collective is done
    auto fail = [&](std::string const& problem, std::string const& remedy) {
      if (!error) error = {problem, remedy};
    };

    std::vector<Index> root(topology.num_tets());
    std::iota(root.begin(), root.end(), Index(0));
    auto find = [&](Index t) {
      while (root[t] != t) t = root[t] = root[root[t]];
      return t;
    };
    std::vector<double> box{1e300, 1e300, 1e300, 1e300, 1e300, 1e300}; // low, then minus high
    for (Index f = 0; f < topology.num_faces(); ++f) {
      auto const [t0, t1] = topology.face_tets[f];
      if (topology.face_tag[f] != tag) {
        if (t1 >= 0) root[find(t0)] = find(t1);
        continue;
      }
      for (Index v : topology.face_vertices[f])
        for (int c = 0; c < 3; ++c) {
          box[c] = std::min(box[c], stored_.mesh.points[v][c]);
          box[3 + c] = std::min(box[3 + c], -stored_.mesh.points[v][c]);
        }
    }
    auto const boxes = parallel::all_gathered(communicator, box);
    for (std::size_t k = 6; k < boxes.size(); ++k) box[k % 6] = std::min(box[k % 6], boxes[k]);
    for (int c = 0; c < 6; ++c) box[c] = std::min(box[c], boxes[c]);

    std::vector<Index> label(topology.num_tets(), std::numeric_limits<Index>::max());
    for (Index t = 0; t < topology.num_tets(); ++t) label[find(t)] = std::min(label[find(t)], stored_.global_tet[t]);
    // A reserve tet's name goes to its owner, and the owner's back.
    std::vector<std::vector<Index>> reserve_of(ranks);
    for (Index t = 0; t < topology.num_tets(); ++t)
      if (!owns_stored_tet_[t])
        reserve_of[static_cast<std::size_t>(parallel::tet_owner(stored_.mesh, stored_.vertex_owner, t))].push_back(t);
    std::vector<std::vector<std::int64_t>> asks(ranks);
    for (std::size_t r = 0; r < ranks; ++r)
      for (Index t : reserve_of[r]) asks[r].push_back(stored_.global_tet[t]);
    auto const asked = communicator.all_to_all(asks);
    std::vector<std::vector<Index>> owned_asked(ranks);
    for (std::size_t r = 0; r < ranks; ++r)
      for (std::int64_t global : asked[r]) {
        auto const it = std::lower_bound(stored_.global_tet.begin(), stored_.global_tet.end(), global);
        if (it == stored_.global_tet.end() || *it != global)
          throw std::logic_error("a rank holds in reserve a tet that its owner's part lacks");
        owned_asked[r].push_back(static_cast<Index>(it - stored_.global_tet.begin()));
      }
    for (bool changed = true; changed;) {
      bool lowered = false;
      auto lower = [&](Index t, std::int64_t name_elsewhere) {
        Index const r = find(t);
        if (name_elsewhere < label[r]) {
          label[r] = static_cast<Index>(name_elsewhere);
          lowered = true;
        }
      };
      std::vector<std::vector<std::int64_t>> names(ranks);
      for (std::size_t r = 0; r < ranks; ++r)
        for (Index t : reserve_of[r]) names[r].push_back(label[find(t)]);
      auto const received = communicator.all_to_all(names);
      for (std::size_t r = 0; r < ranks; ++r)
        for (std::size_t k = 0; k < received[r].size(); ++k) lower(owned_asked[r][k], received[r][k]);
      for (std::size_t r = 0; r < ranks; ++r) {
        names[r].clear();
        for (Index t : owned_asked[r]) names[r].push_back(label[find(t)]);
      }
      auto const answers = communicator.all_to_all(names);
      for (std::size_t r = 0; r < ranks; ++r)
        for (std::size_t k = 0; k < answers[r].size(); ++k) lower(reserve_of[r][k], answers[r][k]);
      changed = communicator.max(lowered ? 1 : 0) > 0;
    }

    // The outside: the regions with tets beyond the box.
    std::vector<std::int64_t> beyond_here;
    for (Index t = 0; t < topology.num_tets(); ++t) {
      auto const& b = stored_geometry_.tet_barycentre[t];
      for (int c = 0; c < 3; ++c)
        if (b[c] < box[c] || b[c] > -box[3 + c]) beyond_here.push_back(label[find(t)]);
    }
    std::sort(beyond_here.begin(), beyond_here.end());
    beyond_here.erase(std::unique(beyond_here.begin(), beyond_here.end()), beyond_here.end());
    auto beyond = parallel::all_gathered(communicator, beyond_here);
    std::sort(beyond.begin(), beyond.end());
    auto outside = [&](Index t) { return std::binary_search(beyond.begin(), beyond.end(), label[find(t)]); };

    FarFieldFaces faces;
    faces.name = name;
    std::int64_t found = 0;
    for (Index f = 0; f < topology.num_faces(); ++f) {
      if (topology.face_tag[f] != tag) continue;
      auto const [t0, t1] = topology.face_tets[f];
      bool const owned0 = owns_stored_tet_[t0], owned1 = t1 >= 0 && owns_stored_tet_[t1];
      if (!owned0 && !owned1) continue;
      ++found;
      if (t1 < 0) {
        fail("lies on the boundary of " + stored_.mesh.source,
             "use a closed surface inside the mesh, around what radiates and in one medium");
        continue;
      }
      if (label[find(t0)] == label[find(t1)] || outside(t0) == outside(t1)) {
        fail("does not enclose a region of " + stored_.mesh.source + " (a face has the same region on both sides)",
             "use a closed surface inside the mesh");
        continue;
      }
      Index const inside = outside(t0) ? t1 : t0;
      if (!owns_stored_tet_[inside]) continue;
      faces.faces.push_back(stored_face_global_[f]);
      faces.inside.push_back(stored_.global_tet[inside]);
      extra.push_back(inside == t0 ? t1 : t0);
    }
    if (communicator.max(found) == 0)
      fail("has no faces in " + stored_.mesh.source, "name a physical surface meshed with the volume");
    auto whole_surface =
        parallel::all_gathered(communicator, std::vector<std::int64_t>(faces.faces.begin(), faces.faces.end()));
    std::sort(whole_surface.begin(), whole_surface.end());
    faces.whole_faces = static_cast<Index>(whole_surface.size());
    for (Index f : faces.faces)
      faces.places.push_back(
          static_cast<Index>(std::lower_bound(whole_surface.begin(), whole_surface.end(), f) - whole_surface.begin()));
    far_fields_.push_back(std::move(faces));
    if (error) throw ModelError(ModelSubject::far_field, name, error->first, error->second);
  }
  return extra;
}

solver::FarFieldSides PartFromDiskPlacement::far_field_sides(int, std::string const& name) const
{
  auto const& communicator = *communicator_;
  auto const entry =
      std::find_if(far_fields_.begin(), far_fields_.end(), [&](auto const& f) { return f.name == name; });
  if (entry == far_fields_.end()) throw std::logic_error("a far-field surface was not placed over the parts");
  solver::FarFieldSides sides;
  sides.whole_faces = entry->whole_faces;
  sides.places = entry->places;
  sides.faces = local_faces(face_global(), entry->faces);
  for (Index inside : entry->inside) sides.inside.push_back(part()->local_tet(inside));
  // The medium is the first face's (place 0), as in one process.
  std::vector<double> first{1e300, 0, 0};
  for (std::size_t k = 0; k < sides.faces.size(); ++k)
    if (sides.places[k] == 0) {
      Index const t = problem_.topology.face_tets[sides.faces[k]][0];
      first = {0, problem_.materials.eps[t], problem_.materials.mu[t]};
    }
  auto const firsts = parallel::all_gathered(communicator, first);
  for (std::size_t k = 0; k < firsts.size(); k += 3)
    if (firsts[k] == 0) {
      sides.eps = firsts[k + 1];
      sides.mu = firsts[k + 2];
    }
  std::optional<std::pair<std::string, std::string>> problem;
  for (Index f : sides.faces)
    for (Index t : problem_.topology.face_tets[f])
      if (!problem) problem = solver::far_field_tet_problem(problem_.materials, t, sides.eps, sides.mu);
  // Every rank throws the error one found, so that none waits in a collective after it (keeping the
  // ModelError, which names the [[farfield]] line, where parallel::together would not).
  auto const failing = communicator.max(problem ? communicator.rank() : -1);
  if (failing >= 0) {
    std::string const both = problem ? problem->first + '\n' + problem->second : std::string();
    std::vector<char> bytes(both.begin(), both.end());
    communicator.broadcast(bytes, static_cast<int>(failing));
    std::string const told(bytes.begin(), bytes.end());
    auto const split = told.find('\n');
    throw ModelError(ModelSubject::far_field, name, told.substr(0, split), told.substr(split + 1));
  }
  return sides;
}

} // namespace dgatd::simulation
