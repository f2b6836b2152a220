#include "dgatd/mesh/surfaces.hpp"

#include <algorithm>
#include <cmath>

namespace dgatd::mesh {

std::vector<Index> surface_faces(Topology const& topology, int tag)
{
  std::vector<Index> faces;
  for (Index f = 0; f < topology.num_faces(); ++f)
    if (topology.face_tag[f] == tag) faces.push_back(f);
  return faces;
}

Vec3 face_area_vector(MeshView const& m, Index f, Index t)
{
  auto const& v = m.topology.face_vertices[f];
  auto const& p0 = m.mesh.points[v[0]];
  Vec3 const a = scaled(cross(sub(m.mesh.points[v[1]], p0), sub(m.mesh.points[v[2]], p0)), 0.5);
  return dot(a, sub(m.geometry.tet_barycentre[t], p0)) > 0 ? scaled(a, -1.0) : a;
}

void PlaneFit::add(Vec3 const& x)
{
  auto& m = moments_;
  m[0] += 1;
  for (int i = 0; i < 3; ++i) m[1 + i] += x[i];
  m[4] += x[0] * x[0], m[5] += x[1] * x[1], m[6] += x[2] * x[2];
  m[7] += x[0] * x[1], m[8] += x[0] * x[2], m[9] += x[1] * x[2];
}

Vec3 PlaneFit::centre() const
{
  auto const& m = moments_;
  return {m[1] / m[0], m[2] / m[0], m[3] / m[0]};
}

PlaneFit::Covariance PlaneFit::covariance() const
{
  auto const& m = moments_;
  Vec3 const c = centre();
  return {m[4] / m[0] - c[0] * c[0], m[5] / m[0] - c[1] * c[1], m[6] / m[0] - c[2] * c[2],
          m[7] / m[0] - c[0] * c[1], m[8] / m[0] - c[0] * c[2], m[9] / m[0] - c[1] * c[2]};
}

// The smallest eigenvalue of the symmetric 3 x 3 covariance, by the trigonometric formula.
double PlaneFit::smallest_eigenvalue(Covariance const& c) const
{
  double const mean = (c.xx + c.yy + c.zz) / 3;
  double const off = c.xy * c.xy + c.xz * c.xz + c.yz * c.yz;
  double const spread = std::sqrt(
      ((c.xx - mean) * (c.xx - mean) + (c.yy - mean) * (c.yy - mean) + (c.zz - mean) * (c.zz - mean) + 2 * off) / 6);
  if (!(spread > 0)) return mean;
  double const a = (c.xx - mean) / spread, b = (c.yy - mean) / spread, d = (c.zz - mean) / spread;
  double const e = c.xy / spread, f = c.xz / spread, g = c.yz / spread;
  double const half_det = 0.5 * (a * (b * d - g * g) - e * (e * d - g * f) + f * (e * g - b * f));
  double const angle = std::acos(std::clamp(half_det, -1.0, 1.0)) / 3;
  return mean + 2 * spread * std::cos(angle + 2 * M_PI / 3);
}

double PlaneFit::mean_square_distance() const { return smallest_eigenvalue(covariance()); }

Vec3 PlaneFit::normal() const
{
  // The row of (covariance - smallest I)'s adjugate with the largest norm.
  Covariance const c = covariance();
  double const smallest = smallest_eigenvalue(c);
  Vec3 const r0{c.xx - smallest, c.xy, c.xz}, r1{c.xy, c.yy - smallest, c.yz}, r2{c.xz, c.yz, c.zz - smallest};
  Vec3 const candidates[3] = {cross(r0, r1), cross(r0, r2), cross(r1, r2)};
  Vec3 normal = candidates[0];
  for (auto const& candidate : candidates)
    if (norm(candidate) > norm(normal)) normal = candidate;
  return scaled(normal, 1.0 / norm(normal));
}

void SurfaceShape::add_face(Vec3 const& area_vector, std::array<Vec3, 3> const& corners)
{
  double const face = norm(area_vector);
  face_normal.push_back(scaled(area_vector, 1.0 / face));
  face_area.push_back(face);
  this->area_vector = add(this->area_vector, scaled(face_normal.back(), face));
  Vec3 const centroid = scaled(add(add(corners[0], corners[1]), corners[2]), 1.0 / 3);
  centre = add(centre, scaled(centroid, face));
  area += face;
  for (Vec3 const& x : corners) {
    vertices.add(x);
    for (int c = 0; c < 3; ++c) {
      low[c] = std::min(low[c], x[c]);
      high[c] = std::max(high[c], x[c]);
    }
  }
}

SurfaceShape surface_shape(MeshView const& m, std::vector<SurfaceFace> const& faces)
{
  SurfaceShape shape;
  shape.face_normal.reserve(faces.size());
  shape.face_area.reserve(faces.size());
  for (auto const& [f, behind] : faces) {
    auto const& v = m.topology.face_vertices[f];
    shape.add_face(face_area_vector(m, f, behind), {m.mesh.points[v[0]], m.mesh.points[v[1]], m.mesh.points[v[2]]});
  }
  shape.finish();
  return shape;
}

TetPieces connected_pieces(Topology const& topology, std::vector<char> const& member)
{
  TetPieces pieces;
  pieces.piece.assign(static_cast<std::size_t>(topology.num_tets()), -1);
  std::vector<Index> stack;
  for (Index t0 = 0; t0 < topology.num_tets(); ++t0) {
    if (!member[t0] || pieces.piece[t0] >= 0) continue;
    pieces.piece[t0] = pieces.count;
    stack.assign(1, t0);
    while (!stack.empty()) {
      Index const t = stack.back();
      stack.pop_back();
      for (Index f : topology.tet_faces[t])
        for (Index u : topology.face_tets[f])
          if (u >= 0 && member[u] && pieces.piece[u] < 0) {
            pieces.piece[u] = pieces.count;
            stack.push_back(u);
          }
    }
    ++pieces.count;
  }
  return pieces;
}

} // namespace dgatd::mesh
