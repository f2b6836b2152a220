#pragma once
// Mesh-level queries on surfaces (sets of faces) and on sets of tets: the faces of a physical
// surface, a face's area vector, the shape of a surface (its area, mean normal and centre, and the
// least-squares plane of its vertices), and the connected pieces of a set of tets.

#include "dgatd/mesh/view.hpp"

#include <array>
#include <limits>
#include <vector>

namespace dgatd::mesh {

// The faces of physical surface tag, in increasing id.
std::vector<Index> surface_faces(Topology const& topology, int tag);

// Face f's area vector, its area times its unit normal, pointing out of tet t, one of its tets.
Vec3 face_area_vector(MeshView const& m, Index f, Index t);

// The least-squares plane of a cloud of points, from their count, sums and second moments taken one
// point at a time.
class PlaneFit {
public:
  void add(Vec3 const& x);
  bool empty() const { return moments_[0] == 0; }
  Vec3 centre() const;
  // The smallest eigenvalue of the points' covariance: their mean squared distance from the plane.
  double mean_square_distance() const;
  // The plane's unit normal, the eigenvector of that eigenvalue; its sign is arbitrary.
  Vec3 normal() const;

private:
  struct Covariance {
    double xx, yy, zz, xy, xz, yz;
  };
  Covariance covariance() const;
  double smallest_eigenvalue(Covariance const& a) const;
  std::array<double, 10> moments_{}; // count, sums of x, y, z, of x^2, y^2, z^2, of xy, xz, yz
};

// A face of a surface and the tet behind it, out of which its area vector points.
struct SurfaceFace {
  Index face;
  Index behind;
};

// The shape of a surface, summed over its faces in the order given.
struct SurfaceShape {
  double area = 0;
  // The sum of the faces' unit normals times their areas: area times the mean normal of a flat
  // surface, nothing for a closed one.
  Vec3 area_vector{};
  Vec3 centre{};                 // of its area
  std::vector<Vec3> face_normal; // unit, per face in the order given
  std::vector<double> face_area;
  PlaneFit vertices; // the faces' vertices, each face's three (shared ones as often as they are shared)
  Vec3 low{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
           std::numeric_limits<double>::infinity()}; // the box of its vertices
  Vec3 high{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
            -std::numeric_limits<double>::infinity()};

  // One face more, from its area vector and its vertices (a face that no local mesh holds, such as
  // one gathered from another rank); centre is the area-weighted sum of centroids until finish.
  void add_face(Vec3 const& area_vector, std::array<Vec3, 3> const& vertices);
  void finish() { centre = scaled(centre, 1.0 / area); }
};
SurfaceShape surface_shape(MeshView const& m, std::vector<SurfaceFace> const& faces);

// The connected pieces of the tets with member[t] != 0, tets joined through their faces, numbered
// in the order of their lowest tet.
struct TetPieces {
  std::vector<Index> piece; // per tet, -1 outside the set
  Index count = 0;
};
TetPieces connected_pieces(Topology const& topology, std::vector<char> const& member);

} // namespace dgatd::mesh
