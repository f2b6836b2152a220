#pragma once
// Where a run's items lie in the mesh this process steps: the whole mesh in one process, or one
// rank's part of it over ranks, cut from the whole mesh that every rank holds or read from part files
// (simulation/part_files.hpp). The sources, probes and capabilities are placed through it in one
// loop (Simulation::Impl::add_sources_and_probes) whichever way the mesh is held; each item is found
// in the whole mesh, so a part takes the same tet or edge as a run of one process. Private to
// simulation/ and the capabilities' models.

#include "dgatd/parallel/communicator.hpp"
#include "dgatd/parallel/decomposition.hpp"
#include "dgatd/simulation/part_files.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/solver/far_field_stencil.hpp"
#include "dgatd/solver/plane_wave_stencil.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dgatd::io {
struct Config;
}

namespace dgatd::simulation {

// A plane wave's total field on the mesh stepped here, decided on the whole problem: a vertex at a
// part's rim may have its total-field tets on another rank.
struct TotalField {
  std::vector<char> tets;     // per tet stepped here
  std::vector<char> vertices; // per vertex stepped here
  solver::TfsfSurface surface;
};

class Placement {
public:
  virtual ~Placement() = default;

  // The problem this process steps, in its local numbering.
  Problem const& problem() const { return problem_; }
  // A rank's part of the whole mesh with the global ids of its edges and faces; null in one process.
  parallel::MeshPart const* part() const { return part_ ? &*part_ : nullptr; }
  std::vector<Index> const& edge_global() const { return edge_global_; }
  std::vector<Index> const& face_global() const { return face_global_; }

  // The tag of a physical volume or surface of the whole mesh (volume_tag's messages: table is the
  // item's kind, where its configuration line).
  virtual int volume_tag(std::string const& name, std::string const& table, std::string const& where) const = 0;
  virtual int surface_tag(std::string const& name, std::string const& where) const;
  // Whether the tet of the whole mesh that holds x (a point source called name) is stepped here, and
  // whether the whole mesh's edge nearest x is; collective. On the blocks a rank does not own, what
  // a source adds is overwritten by the halo exchange.
  virtual bool steps_point(std::string const& name, Vec3 const& x) const = 0;
  virtual bool steps_edge_nearest(Vec3 const& x) const = 0;
  // Whether probe k of the configuration is read here (on the owner of its tet; the others read zero
  // and the ranks' samples are summed).
  bool reads_probe(std::size_t k) const;
  // Per block of the problem, whether this process owns it; empty: all of them.
  std::vector<char> owned_blocks() const;
  // The whole mesh's surface tag with the tets beside it and their materials, as a problem without
  // operators (a port's shape and medium); collective.
  virtual std::shared_ptr<Problem const> around_surface(int tag) const = 0;
  // The total field of a plane wave into the volumes tags; collective.
  virtual TotalField total_field(std::vector<int> const& tags, solver::PlaneWaveSpec const& spec) const = 0;
  // The faces of the far-field surface tag (called name) whose transforms are computed here, in the
  // problem's numbering: over ranks those whose inside tet this rank owns. Collective.
  virtual solver::FarFieldSides far_field_sides(int tag, std::string const& name) const;
  // The largest value over the ranks; collective.
  double largest(double value) const;
  // The place of each of items (whole-mesh ids, each held by one rank) among all ranks' items in
  // ascending order, which is a run of one process's order of them; whole: their number. Collective.
  std::vector<Index> places_among_ranks(std::vector<Index> const& items, Index& whole) const;

protected:
  // communicator: the ranks' (null in one process).
  explicit Placement(Problem const& problem, parallel::Communicator const* communicator = nullptr)
      : problem_(problem), communicator_(communicator)
  {
  }
  // Over ranks: this rank's part, the global ids of its edges and faces, and the whole mesh's tet of
  // each probe.
  void set_part(parallel::MeshPart part, std::vector<Index> edge_global, std::vector<Index> face_global,
                std::vector<Index> probe_tets);

  Problem const& problem_;
  parallel::Communicator const* communicator_;

private:
  std::optional<parallel::MeshPart> part_;
  std::vector<Index> edge_global_, face_global_, probe_tets_;
};

// One process: problem is the whole.
std::unique_ptr<Placement> whole_mesh_placement(Problem const& problem);

// A rank's part of the whole problem every rank holds (without operators): problem is the part's,
// probe_tets the whole mesh's tet of each probe.
std::unique_ptr<Placement> part_of_whole_placement(Problem const& problem, Problem const& whole,
                                                   parallel::MeshPart part, std::vector<Index> probe_tets,
                                                   parallel::Communicator const& communicator);

// A rank's part read from part files, without the whole mesh: what the whole mesh would answer is
// found over the ranks, in the parts as stored (with their reserve tets). The stored part's complex
// is held until the placement goes (the end of the set-up).
class PartFromDiskPlacement final : public Placement {
public:
  PartFromDiskPlacement(Problem const& problem, io::Config const& config, PartsManifest const& manifest,
                        StoredPart stored, parallel::Communicator const& communicator);
  // The stored part: its complex and which of its tets this rank owns.
  StoredPart const& stored() const { return stored_; }
  mesh::MeshView stored_view() const { return {stored_.mesh, stored_topology_, stored_geometry_}; }
  std::vector<char> const& owns_stored_tet() const { return owns_stored_tet_; }
  std::vector<Index> const& stored_face_global() const { return stored_face_global_; }
  // The global tet holding x (name for the message when it lies outside the mesh); collective.
  Index whole_tet(std::string const& name, Vec3 const& x) const;
  // The part stepped here (make_mesh_part on the stored part, numbered as the whole mesh), with the
  // stored tet of each of its tets and the whole mesh's tet of each probe.
  void hold_part(parallel::MeshPart part, std::vector<Index> const& stored_tet, std::vector<Index> probe_tets);

  int volume_tag(std::string const& name, std::string const& table, std::string const& where) const override;
  bool steps_point(std::string const& name, Vec3 const& x) const override;
  bool steps_edge_nearest(Vec3 const& x) const override;
  std::shared_ptr<Problem const> around_surface(int tag) const override;
  TotalField total_field(std::vector<int> const& tags, solver::PlaneWaveSpec const& spec) const override;
  // Finds over the ranks, in the stored parts, the faces of each [[farfield]] surface whose inside tet
  // this rank owns; returns the stored tets outside them, which this rank then steps too. Collective.
  std::vector<Index> place_far_fields();
  solver::FarFieldSides far_field_sides(int tag, std::string const& name) const override;

private:
  // A far-field surface's faces that this rank computes, in the whole mesh's numbering.
  struct FarFieldFaces {
    std::string name;
    std::vector<Index> faces, inside, places;
    Index whole_faces = 0;
  };

  io::Config const& config_;
  PartsManifest const& manifest_;
  StoredPart stored_;
  mesh::Topology stored_topology_;
  mesh::Geometry stored_geometry_;
  std::vector<char> owns_stored_tet_;
  std::vector<Index> stored_edge_global_, stored_face_global_;
  std::vector<FarFieldFaces> far_fields_;
};

// The tets a rank steps besides its own for the far-field surfaces of config (each face's outside
// tet, where the rank owns the inside one), found in whole, split over ranks by owner (vertex_owners).
std::vector<Index> far_field_extra_tets(io::Config const& config, Problem const& whole, std::vector<int> const& owner,
                                        int rank);

// Per block of problem, whether part owns its vertex.
std::vector<char> owned_blocks(Problem const& problem, parallel::MeshPart const& part);

} // namespace dgatd::simulation
