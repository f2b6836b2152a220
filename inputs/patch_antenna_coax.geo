// inputs/patch_antenna.geo's patch fed from below by a 50-ohm coaxial line (inner radius 1 mm, outer
// 2.3 mm, air) through a hole in its ground, the pin at the same inset as the lumped port's; read by
// inputs/patch_antenna_coax.toml.
coax = 1;
Include "patch_antenna.geo";
