// The fine aircraft of inputs/aircraft/aircraft_fine.toml: 10.5 elements per wavelength at 2.2 GHz away from
// the body (h), 0.006 m on it (h_body); about 1e7 tets. Mesh it once with
//   gmsh -3 -nt 16 inputs/aircraft/aircraft_fine.geo -o aircraft_fine.msh
h = 0.013;
h_body = 0.006;
Include "aircraft_shape.geo";
