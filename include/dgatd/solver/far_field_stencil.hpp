#pragma once
// Host-side preparation of a near-to-far-field surface (docs/method/plane_waves.md, section 5): a closed
// interior surface in one homogeneous lossless medium, on whose faces a run accumulates the
// Fourier transforms of e and h at a few frequencies (solver/far_field.hpp), from which
// `dgatd farfield` computes the far field by Love's equivalence.

#include "dgatd/dga/operators.hpp"
#include "dgatd/mesh/view.hpp"
#include "dgatd/solver/far_field_record.hpp"
#include "dgatd/solver/waveform.hpp"
#include "dgatd/vec3.hpp"

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::solver {

// What the step reads for each face: e at the face's centroid from its three edges' circulations
// (Whitney's edge forms there: e = sum_k U_k edge_weights[k], U_k the sum of the edge's two
// half-edge unknowns) and h from the f^ of the tets on its two sides (the average of each tet's
// four subregion fields: h = sum_s tet_weights[s] f^_(tets[s])).
struct FarFieldStencil {
  std::string name; // the surface
  std::vector<double> frequencies;
  double eps = 0, mu = 0; // the medium around the surface
  std::vector<std::array<Index, 6>> edge_unknowns;
  std::vector<std::array<Vec3, 3>> edge_weights;
  std::vector<std::array<Index, 2>> tets;
  std::vector<std::array<std::array<double, 12>, 2>> tet_weights; // 3 x 4 row-major per side, halves included
  // Each face's place among the whole surface's faces (the order of a run in one process), of
  // whole_faces: a rank's part holds the faces whose inside tet it owns.
  std::vector<Index> places;
  Index whole_faces = 0;
  std::vector<Vec3> centroids;
  std::vector<Vec3> normals; // unit, out of the enclosed region
  std::vector<double> areas;
  // The run's plane wave, whose e at its origin is transformed alongside (radar cross sections).
  bool has_incident = false;
  Vec3 incident_direction{};
  Vec3 incident_polarization{};
  Vec3 incident_origin{}; // where the incident e is transformed
  Waveform incident_waveform;
};

// The faces of a far-field surface and the side of each that the surface encloses, decided on the
// whole mesh: the outside is the region, apart from the surface, that reaches beyond its bounding box.
struct FarFieldSides {
  std::vector<Index> faces;  // ascending
  std::vector<Index> inside; // per face, its tet on the enclosed side
  std::vector<Index> places; // per face, its place among whole_faces (see FarFieldStencil)
  Index whole_faces = 0;
  double eps = 0, mu = 0; // the medium around the surface
};

// The sides of the physical surface surface_tag (called name) of m, a whole mesh. Throws
// dgatd::ModelError (a far-field surface) when it has no faces, lies on the mesh's boundary, does not
// enclose a region, or has tets of more than one material, a conductivity or a stretch on either side.
FarFieldSides far_field_sides(mesh::MeshView const& m, dga::Materials const& materials, int surface_tag,
                              std::string const& name);

// Why tet t cannot lie beside a far-field surface in the medium (eps, mu): a ModelError's problem and
// remedy, or nothing when it can.
std::optional<std::pair<std::string, std::string>> far_field_tet_problem(dga::Materials const& materials, Index t,
                                                                         double eps, double mu);

// The stencil of the faces of sides (in m's numbering, which may be a part's).
FarFieldStencil far_field_stencil(mesh::MeshView const& m, dga::HostOperators const& ops, FarFieldSides const& sides,
                                  std::string const& name, std::vector<double> const& frequencies);

} // namespace dgatd::solver
