// A sphere graded towards the scatterer (GeneratorSpec::sphere_element_size, `dgatd mesh sphere
// --h-sphere`, [mesh] h_sphere): small elements at the sphere, h from the total-field cube's
// inscribed sphere on, as the linear size law asks; a size on the sphere above h, or on another
// shape, is refused.
#include "dgatd/error.hpp"
#include "dgatd/mesh/generators.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dgatd::mesh {
namespace {

constexpr double kRadius = 0.1, kTfsf = 0.28, kBox = 0.44, kH = 0.04, kCentre = 0.5 * kBox;

GeneratorSpec sphere(double h_sphere)
{
  GeneratorSpec spec;
  spec.shape = "sphere";
  spec.size = {kBox, kBox, kBox};
  spec.sphere_radius = kRadius;
  spec.tfsf = kTfsf;
  spec.element_size = kH;
  spec.sphere_element_size = h_sphere;
  return spec;
}

double distance(Vec3 const& a, Vec3 const& b)
{
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

// The mean edge length of the tets whose centroid lies between `from` and `to` of the centre.
double mean_edge(Mesh const& m, double from, double to)
{
  double sum = 0;
  int edges = 0;
  for (auto const& tet : m.tets) {
    Vec3 centroid{};
    for (Index v : tet)
      for (int a = 0; a < 3; ++a) centroid[a] += 0.25 * m.points[v][a];
    double const r = distance(centroid, {kCentre, kCentre, kCentre});
    if (r < from || r >= to) continue;
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) {
        sum += distance(m.points[tet[i]], m.points[tet[j]]);
        ++edges;
      }
  }
  return edges > 0 ? sum / edges : 0;
}

TEST(MeshSphereGrading, ElementsGrowFromTheSphereToH)
{
  auto const plain = generate_mesh(sphere(0));
  auto const graded = generate_mesh(sphere(kH / 4));
  EXPECT_GT(graded.num_tets(), plain.num_tets());
  // Within 0.015 of the sphere the law asks for 0.010 to 0.021 (mean 0.016), against 0.04.
  double const near_plain = mean_edge(plain, kRadius, kRadius + 0.015);
  double const near_graded = mean_edge(graded, kRadius, kRadius + 0.015);
  EXPECT_LT(near_graded, 0.55 * near_plain) << near_graded << " against " << near_plain;
  // Beyond the far-field cube's inscribed sphere both ask for h: the same elements within what
  // Delaunay's growth from the finer ones leaves.
  double const far_plain = mean_edge(plain, 0.5 * (kTfsf + kBox) / 2, kBox);
  double const far_graded = mean_edge(graded, 0.5 * (kTfsf + kBox) / 2, kBox);
  EXPECT_NEAR(far_graded, far_plain, 0.15 * far_plain);
}

TEST(MeshSphereGrading, ASizeAboveHOrOnAnotherShapeIsRefused)
{
  EXPECT_THROW(generate_mesh(sphere(2 * kH)), Error);
  GeneratorSpec box;
  box.shape = "box";
  box.size = {1, 1, 1};
  box.element_size = 0.3;
  box.sphere_element_size = 0.1;
  EXPECT_THROW(generate_mesh(box), Error);
}

} // namespace
} // namespace dgatd::mesh
