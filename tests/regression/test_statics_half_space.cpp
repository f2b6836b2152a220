// A charged conducting ball above a dielectric half-space (issue 50, acceptance 1) through
// `dgatd statics`' library path: the ball's potential for its charge against the image solution.
// The half-space eps2 answers a charge q in the upper medium eps1 with the image k q mirrored in the
// interface, k = (eps1 - eps2) / (eps1 + eps2); keeping the ball an equipotential answers each image
// with its Kelvin image inside the ball, and so on: a geometric series (Smythe, Static and Dynamic
// Electricity, sections 5.07 and 5.08). The mesh is a quarter of a grounded sphere of radius R about
// the interface (its cut planes natural by symmetry); grounding at R lowers every potential by the
// far field's monopole, Q / (2 pi (eps1 + eps2) R), to first order in the ball's height over R.
#include "dgatd/dga/operators.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/simulation/statics.hpp"
#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using dgatd::testing::ScratchDirectory;

constexpr double pi = 3.14159265358979323846;
constexpr double a = 0.1, h = 0.2, R = 2; // the ball's radius, its centre's height, the ground's radius

// The capacitance of the ball above the half-space within the grounded sphere: the image series'
// charges q_i at depths d_i below the ball's centre (towards the interface), from q_0 = 1 at the
// centre: q_(i+1) = -k q_i a / (2 h - d_i), d_(i+1) = a^2 / (2 h - d_i); the ball's potential is
// q_0 / (4 pi eps1 a) and its charge the sum of the q_i.
double image_capacitance(double eps1, double eps2)
{
  double const k = (eps1 - eps2) / (eps1 + eps2);
  double q = 1, d = 0, charge = 0;
  for (int i = 0; i < 200; ++i) {
    charge += q;
    q *= -k * a / (2 * h - d);
    d = a * a / (2 * h - d);
  }
  double const free_space = 4 * pi * eps1 * a * charge;
  return 1 / (1 / free_space - 1 / (2 * pi * (eps1 + eps2) * R));
}

std::string geometry(double size_ball, double size_far)
{
  char text[2048];
  std::snprintf(text, sizeof text, R"(SetFactory("OpenCASCADE");
a = %.17g; h = %.17g; R = %.17g;
Sphere(1) = {0, 0, 0, R};
Box(2) = {0, 0, 0, R, R, R};
BooleanIntersection(3) = { Volume{1}; }{ Volume{2}; Delete; };
Sphere(4) = {0, 0, h, a};
BooleanDifference(5) = { Volume{3}; Delete; }{ Volume{4}; Delete; };
Box(6) = {0, 0, -R, R, R, R};
BooleanIntersection(7) = { Volume{1}; Delete; }{ Volume{6}; Delete; };
BooleanFragments{ Volume{5, 7}; Delete; }{}
l = 1e-6;
upper() = Volume In BoundingBox{-l, -l, -l, R + l, R + l, R + l};
lower() = Volume In BoundingBox{-l, -l, -R - l, R + l, R + l, l};
ball() = Surface In BoundingBox{-l, -l, h - a - l, a + l, a + l, h + a + l};
outer() = Abs(CombinedBoundary{ Volume{upper(), lower()}; });
outer() -= ball();
outer() -= Surface In BoundingBox{-l, -l, -R - l, l, R + l, R + l};
outer() -= Surface In BoundingBox{-l, -l, -R - l, R + l, l, R + l};
Physical Volume("air") = upper();
Physical Volume("dielectric") = lower();
Physical Surface("ball") = ball();
Physical Surface("ground") = outer();
Field[1] = Distance;
Field[1].SurfacesList = {ball()};
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = %.17g;
Field[2].SizeMax = %.17g;
Field[2].DistMin = 0;
Field[2].DistMax = R;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Algorithm3D = 1;
)",
                a, h, R, size_ball, size_far);
  return text;
}

struct Measured {
  double capacitance = 0; // of the whole ball (four quarters)
  long long tets = 0;
};

Measured ball_over_half_space(ScratchDirectory const& scratch, std::string const& geo, double eps2)
{
  // A quarter of the charge on the quarter of the ball.
  constexpr double quarter_charge = 2.5e-11;
  std::string const text = "[mesh]\nfile = \"" + geo +
                           "\"\n\n[[material]]\nregion = \"dielectric\"\neps_r = " + std::to_string(eps2) +
                           "\n\n[[conductor]]\nname = \"ball\"\nsurfaces = \"ball\"\ncharge = 2.5e-11\n\n"
                           "[[conductor]]\nname = \"ground\"\nsurfaces = \"ground\"\npotential = 0\n";
  auto const config =
      dgatd::io::parse_config(text, "ball.toml", scratch.path().string(), dgatd::io::ConfigUse::statics);
  auto const s = dgatd::simulation::solve_statics(config);
  EXPECT_FALSE(s.conductors[0].potential_given);
  return {4 * quarter_charge / s.conductors[0].potential, static_cast<long long>(s.mesh.tets.size())};
}

TEST(StaticsHalfSpace, AChargedBallAboveADielectricMatchesItsImages)
{
  ScratchDirectory const scratch("statics_half_space");
  scratch.write("ball.geo", geometry(a / 12, R / 12));
  double const eps0 = dgatd::dga::eps0;
  auto const vacuum = ball_over_half_space(scratch, "ball.geo", 1);
  auto const dielectric = ball_over_half_space(scratch, "ball.geo", 4);
  double const reference_vacuum = image_capacitance(eps0, eps0);
  double const reference_dielectric = image_capacitance(eps0, 4 * eps0);
  double const error_vacuum = vacuum.capacitance / reference_vacuum - 1;
  double const error_dielectric = dielectric.capacitance / reference_dielectric - 1;
  double const error_ratio =
      (dielectric.capacitance / vacuum.capacitance) / (reference_dielectric / reference_vacuum) - 1;
  std::printf("%lld tets: C = %.5g pF (images %.5g, %+.3f %%) over vacuum, %.5g pF (images %.5g, %+.3f %%) over "
              "eps_r = 4; their ratio %+.3f %% off the images'\n",
              vacuum.tets, vacuum.capacitance * 1e12, reference_vacuum * 1e12, 100 * error_vacuum,
              dielectric.capacitance * 1e12, reference_dielectric * 1e12, 100 * error_dielectric, 100 * error_ratio);
  // The half-space raises the capacitance by 14.7 %: the images' part of it.
  EXPECT_GT(reference_dielectric / reference_vacuum, 1.14);
  // Each within 1 %: the facets of the ball and the graded far mesh (measured +0.9 % at 37 k tets,
  // +0.6 % here, +0.3 % at 7e5 tets, converging on the images), and the outer sphere's dipole
  // remainder, (h / R)^2 a / R = 5e-4.
  EXPECT_LT(std::abs(error_vacuum), 0.01);
  EXPECT_LT(std::abs(error_dielectric), 0.01);
  // The dielectric's effect alone, the mesh's error common to both cancelling: within 0.2 %
  // (measured 0.12 %, 0.08 % and 0.06 % on the meshes of a / 8, a / 12 and a / 16 at the ball).
  EXPECT_LT(std::abs(error_ratio), 0.002);
}

} // namespace
