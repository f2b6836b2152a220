// The coarse aircraft of inputs/aircraft.toml: 10 elements per wavelength at 0.9 GHz away from the
// body (h), 0.015 m on it (h_body); about 625 k tets.
h = 0.033;
h_body = 0.015;
Include "aircraft_shape.geo";
