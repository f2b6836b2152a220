#pragma once
// The graded sphere cavity of the local steps' tests: a PEC sphere (radius 0.1 m) in a closed box of
// 0.44 m, 22,276 tets from h = 0.05 down to 0.0125 at the sphere, rung by a dipole's modulated
// Gaussian, with probes p and q. after_mesh goes after the mesh's table (a [[pml]] for the shell the
// generator meshes around the box), time_and_output are the [time] and [output] tables.

#include <string>

namespace dgatd::testing {

inline std::string graded_sphere_cavity(std::string const& after_mesh, std::string const& time_and_output)
{
  return R"([mesh]
generate = "sphere"
radius = 0.1
tfsf = 0.28
size = 0.44
h = 0.05
h_sphere = 0.0125
pml = 0.1
reproducible = true
)" + after_mesh +
         R"(
[[source]]
kind = "dipole"
position = [0.05, 0.12, 0.09]
direction = [0.5, 0.6, 0.62]
waveform = "modulated_gaussian"
frequency = 0.25e9
sigma = 1.5e-9

[[probe]]
name = "p"
position = [0.22, 0.22, 0.35]

[[probe]]
name = "q"
position = [0.1, 0.22, 0.23]

)" + time_and_output;
}

} // namespace dgatd::testing
