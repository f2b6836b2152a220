#pragma once
// A planar port surface as a two-dimensional triangle mesh, and the 2D DGA operators on it that the
// port's transverse problems need (docs/method/port_modes.md). Scalars live on the primal vertices
// of the section (a potential, E_z or H_z), their differences on its edges (G), and the dual is the
// barycentric one, as in three dimensions: a linear scalar's gradient is constant in a triangle and
// each of the triangle's three vertex subregions recovers it exactly from its two half-edges, so the
// energy form Gt M G is, entry for entry, the stiffness matrix of linear elements in 2D.

#include "dgatd/dga/assembled.hpp"
#include "dgatd/mesh/mesh.hpp"

#include <array>
#include <string>
#include <vector>

namespace dgatd::dga {

using Vec2 = std::array<double, 2>;

struct CrossSection {
  std::string name; // the physical surface, for messages
  // The plane: x = origin + p[0] u + p[1] v, with u x v = normal; the normal points into the tets
  // behind the surface (the direction a wave launched from the port travels).
  Vec3 origin{}, u{}, v{}, normal{};
  std::vector<Vec2> points;                    // metres, in (u, v)
  std::vector<std::array<Index, 3>> triangles; // counter-clockwise in (u, v)
  std::vector<double> eps_r, mu_r;             // per triangle, from the tet behind it
  // Per vertex: -1 free, else its conductor; 0 is the ground, the conductor holding the section's
  // outer boundary loop.
  std::vector<int> conductor;
  int conductor_count = 0;
  // Edges (pairs of section vertices) that lie on a PEC sheet inside the section: a zero-thickness
  // conductor whose two sides share their vertices.
  std::vector<std::array<Index, 2>> sheet_edges;
  std::vector<Index> mesh_vertex; // per section vertex, the 3D mesh vertex it came from

  Index num_vertices() const { return static_cast<Index>(points.size()); }
  Index num_triangles() const { return static_cast<Index>(triangles.size()); }
  double area(Index t) const;
  // The section's vertices of each conductor, ground first.
  std::vector<std::vector<Index>> conductor_vertices() const;
  // A 2D vector of the plane (u, v components) as a vector of space.
  Vec3 in_space(Vec2 const& w) const;
};

// The section of physical surface surface_tag. Its triangles take the materials of the tets behind
// them (per tet, relative). Conductors are the connected sets of the vertices of its boundary edges
// (edges of one of its triangles only) and of its edges on a triangle of a pec_sheet_tags surface.
// Throws dgatd::Error, naming the surface, for one with no triangles, not planar (within 1e-6 of its
// size), not one connected piece, or between two tets of different materials.
CrossSection cross_section(mesh::Mesh const& mesh, int surface_tag, std::vector<double> const& eps_r_per_tet,
                           std::vector<double> const& mu_r_per_tet, std::vector<int> const& pec_sheet_tags = {});

// Gt M G over the section's vertices for a weight per triangle: the P1 stiffness
// K_ij = sum_t w_t |t| grad(lambda_i) . grad(lambda_j), each row's columns increasing.
HostCsr cross_section_stiffness(CrossSection const& section, std::vector<double> const& weight_per_triangle);

// The consistent P1 mass M_ij = sum_t w_t |t| (1 + delta_ij) / 12: the L2 inner product of the linear
// scalars, so uT K u / uT M u is the Rayleigh quotient of the continuous problem over the P1 space
// and its eigenvalues bound the exact ones from above (docs/method/port_modes.md says why not the
// lumped dual areas).
HostCsr cross_section_mass(CrossSection const& section, std::vector<double> const& weight_per_triangle);

// The gradient of a linear scalar (one value per section vertex) in each triangle, in space.
std::vector<Vec3> triangle_gradients(CrossSection const& section, std::vector<double> const& nodal);

} // namespace dgatd::dga
