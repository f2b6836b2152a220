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
#include <string>
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

// The stencil of the physical surface surface_tag (called name). Throws dgatd::ModelError (a
// far-field surface) when it has no faces, lies on the mesh's boundary, does not enclose a region,
// or has tets of more than one material, a conductivity or a stretch on either side.
FarFieldStencil far_field_stencil(mesh::MeshView const& m, dga::HostOperators const& ops,
                                  dga::Materials const& materials, int surface_tag, std::string const& name,
                                  std::vector<double> const& frequencies);

} // namespace dgatd::solver
