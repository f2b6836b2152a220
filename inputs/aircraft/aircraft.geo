// The coarse aircraft of inputs/aircraft/aircraft.toml: 10 elements per wavelength at 0.9 GHz away from the
// body (h), 0.015 m on it (h_body); about 673 k tets (Delaunay).
h = 0.033;
h_body = 0.015;
Include "aircraft_shape.geo";
