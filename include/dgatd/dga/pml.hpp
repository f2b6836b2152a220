#pragma once
// Perfectly matched layers from the mesh's geometry: a layer is a set of tets (a physical volume);
// its depth d(x) is the distance from x to the surface where it meets the rest of the mesh and its
// thickness L the depth at which it ends (its outer surface facing away from the domain). Each
// connected piece of it is stretched by a vector field F interpolated from its vertices
// (dga::Stretching; docs/method/open_regions.md, section 3): a flat piece along the normal n of the plane
// where it meets the domain, F = n F(d); a piece that bends around a box (a shell) along each axis
// beyond that box, F = sum_k e_k F(d_k). F(d) is the integral of alpha(d) = alpha_max min(d / L, 1)^order.

#include "dgatd/dga/operators.hpp"
#include "dgatd/parallel/communicator.hpp"

#include <string>
#include <vector>

namespace dgatd::dga {

struct PmlProfile {
  // Linear by default: it reflects least of orders 1 to 4 from flat layers of 4 to 16 cells, and
  // steeper profiles are unstable where a layer bends around a box, and refused there
  // (docs/method/open_regions.md section 3).
  int order = 1;
  double reflection = 1e-6; // at normal incidence, there and back
  // The complex frequency shift a (1/s): x~ = x + F / (a + i omega). Off by default; a > 0 damps
  // what the plain stretch integrates (a static field's normal part) at the cost of absorbing less
  // below a / (2 pi) (docs/method/open_regions.md, section 3).
  double shift = 0;
};

// What a layer turned out to be, for the run's report.
struct PmlLayer {
  std::string name;
  Index num_tets = 0;
  double thickness = 0;    // L, metres
  double element_size = 0; // mean edge length of its tets
  double alpha_max = 0;    // 1/s
  double shift = 0;        // 1/s, PmlProfile::shift
  // Tets of its bent pieces with corners on both sides of a plane where one axis's stretch starts:
  // a shell meshed as one volume, whose interpolated stretch smears that axis's kink across the
  // others and can grow (docs/method/open_regions.md, section 3).
  Index straddling_tets = 0;
};

// A mesh that is one rank's part of a whole (a run from parts on disk, where no rank holds the whole
// mesh): add_pml_layer learns the whole layer (its interface, pieces, outer surface and size) from
// every rank's part through the communicator.
struct PartOfTheMesh {
  parallel::Communicator const& communicator;
  // Per tet of the part: whether this rank counts it (each tet of the whole mesh is counted on one
  // rank, whose part also holds the tets across all four of its faces), and its global id. Empty
  // ones: the whole mesh, every tet counted, in its own numbering.
  std::vector<char> const& counts_tet;
  std::vector<Index> const& global_tet;
  std::vector<Index> const& global_face; // per face of the part
  bool counts(Index t) const { return counts_tet.empty() || counts_tet[t] != 0; }
  Index tet_id(Index t) const { return global_tet.empty() ? t : global_tet[t]; }
  Index face_id(Index f) const { return global_face.empty() ? f : global_face[f]; }
};

// Sets the Jacobians of the tets with in_layer[t] != 0 in stretching. Throws dgatd::ModelError about
// the matched layer `name` when it touches no other region, has no outer surface across its depth,
// is thinner than two element layers, bends around the domain with a profile steeper than order 1,
// or has another complex frequency shift than a layer set before it. With part, collectively on every
// rank: the layer is the one the whole mesh has, and each tet's Jacobian equals the whole mesh's bit for
// bit (the element size alone, a sum, may differ in its last bits).
PmlLayer add_pml_layer(Stretching& stretching, mesh::Mesh const& mesh, mesh::Topology const& topology,
                       mesh::Geometry const& geometry, Materials const& materials, std::vector<char> const& in_layer,
                       PmlProfile const& profile, std::string const& name, PartOfTheMesh const* part = nullptr);
} // namespace dgatd::dga
