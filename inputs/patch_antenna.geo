// A rectangular microstrip patch antenna fed by a vertical lumped port, read by
// inputs/patch_antenna.toml. Units: metres. Origin: the patch's centre, on the ground plane.
//
// The patch's resonant length L runs along x (radiating edges x = -L/2 and x = +L/2), its width W
// along y. Both come from the transmission-line model (Balanis, Antenna Theory, section 14.2) for
// the design frequency fr, the substrate's eps_r and thickness h:
//   W = c / (2 fr) sqrt(2 / (eps_r + 1))
//   eps_eff = (eps_r + 1)/2 + (eps_r - 1)/2 (1 + 12 h / W)^(-1/2)
//   Delta L = 0.412 h (eps_eff + 0.3)(W/h + 0.264) / ((eps_eff - 0.258)(W/h + 0.8))
//   L = c / (2 fr sqrt(eps_eff)) - 2 Delta L
// The port sits at an inset y0 from the radiating edge x = -L/2, where the cavity model's input
// resistance R_edge cos^2(pi y0 / L) is 50 ohms; R_edge = 1 / (2 (G1 + G12)) takes two integrals
// (Balanis, section 14.2), worked out beside the design in inputs/patch_antenna.toml.
//
//   "ground"    (physical surface, PEC): the substrate's bottom face z = 0, the patch plus margin
//               on every side, an interior sheet (air below it)
//   "patch"     (physical surface, PEC): z = h, |x| <= L/2, |y| <= W/2, on the substrate's top face
//   "feed"      (physical surface, the lumped port): the rectangle x = x_feed, |y| <= wp/2,
//               0 <= z <= h inside the substrate; its bottom edge lies on the ground and its top
//               edge on the patch (the same mesh edges)
//   "substrate" (physical volume): the block under the ground's footprint, 0 <= z <= h
//   "air"       (physical volume): the box around it, clear beyond the substrate on every side
//   "nf2ff"     (physical surface): a closed box halfway between the substrate and the air box's faces
//   "pml"       (physical volume): a shell of thickness pml around the air box
//   "boundary"  (physical surface): the shell's outer faces (PEC by default)
// With coax = 1 (inputs/patch_antenna_coax.geo) a coaxial line feeds the patch from below instead:
//   "coax"       (physical volume): the line's air, from the ground to the shell's outer face
//   "coax_walls" (physical surface): its pin and outer conductor, holes in the mesh
//   "feed"       (physical surface): then the line's end on the outer face, its mode port
// The sheets and the box faces are fragmented together (OpenCASCADE BooleanFragments), so the mesh
// is conformal: the ground's and the port's triangles are shared by two tets, the patch's by a
// substrate tet and an air tet.
//
// Mesh: sizes of h/2 within h of the patch and the port (about two elements across the substrate),
// growing over grade to mean edges of about lambda/15 far away; 3D Delaunay, one thread, so the
// mesh is the same on every run (checked: identical .msh files). Gmsh 4.8.4 gives 203,122 tets
// (12,530 in the substrate, 66,623 in the air, 123,969 in the shell as 26 blocks, 5.1 mean edges
// deep), 36,694 nodes. The shell meshed as one volume (shell_blocks = 0: 193,075 tets) grew in the
// lumped-port run from 8.5 ns, 117 times its peak energy by 11.3 ns, where the watchdog stopped it.
// Check it with: gmsh -3 inputs/patch_antenna.geo -o /tmp/patch_antenna.msh -format msh41
// The parameters below are DefineConstants: each keeps a value given before (gmsh -setnumber NAME
// VALUE, or a .geo that sets it and then Includes this file), e.g. a coarser mesh for a test.

c0 = 299792458;
DefineConstant[ fr = 3.0e9 ];           // design frequency
DefineConstant[ eps_r = 2.2 ];          // substrate (RT/duroid 5880-like); the run's [[material]] must agree
DefineConstant[ h = 3.0e-3 ];           // substrate thickness
DefineConstant[ R_edge = 238.0 ];       // input resistance at the radiating edge, ohms (for fr, eps_r, h
                                        // above: G1 = 1.572 mS, G12 = 0.529 mS)
DefineConstant[ R_feed = 50.0 ];        // input resistance wanted at the port
DefineConstant[ wp = 2.0e-3 ];          // port width along y (a flat probe)
DefineConstant[ coax = 0 ];             // 1: fed from below by a coaxial line instead (inputs/patch_antenna_coax.geo)
DefineConstant[ coax_a = 1.0e-3 ];      // its inner conductor's radius (the pin)
DefineConstant[ coax_b = 2.3e-3 ];      // its outer conductor's inner radius: 60 ln(b / a) = 49.97 ohms in air
DefineConstant[ coax_wall = 0.5e-3 ];   // its outer conductor's thickness
DefineConstant[ coax_size = 0.6e-3 ];   // element size in and around it
DefineConstant[ shell_blocks = 1 ];     // the matched shell meshed as 26 blocks (below); 0: one volume
DefineConstant[ margin = 5 * h ];       // ground and substrate beyond the patch on every side
lambda = c0 / fr;
DefineConstant[ clear = lambda / 4 ];   // air beyond the substrate on every side
DefineConstant[ pml = lambda / 3 ];     // thickness of the matched shell (5 mean edges)
DefineConstant[ h_near = h / 2 ];       // element size on and near the patch
DefineConstant[ h_far = lambda / 19.5 ];// Gmsh's size far away: Delaunay's edges come out about 1.3
                                        // times longer on average, lambda/15
DefineConstant[ grade = lambda / 4 ];   // distance from the patch over which the size grows to h_far

W = c0 / (2 * fr) * Sqrt(2 / (eps_r + 1));
eps_eff = (eps_r + 1) / 2 + (eps_r - 1) / 2 / Sqrt(1 + 12 * h / W);
dL = 0.412 * h * (eps_eff + 0.3) * (W / h + 0.264) / ((eps_eff - 0.258) * (W / h + 0.8));
DefineConstant[ L = c0 / (2 * fr * Sqrt(eps_eff)) - 2 * dL ]; // resonant length (a sweep sets it)
y0 = L / Pi * Acos(Sqrt(R_feed / R_edge));
x_feed = -L / 2 + y0;
Printf("patch: W = %g m, L = %g m, eps_eff = %g, Delta L = %g m, inset y0 = %g m, x_feed = %g m",
       W, L, eps_eff, dL, y0, x_feed);

SetFactory("OpenCASCADE");
Geometry.OCCParallel = 0;

sx = L / 2 + margin;     // substrate (and ground) half-extents
sy = W / 2 + margin;
ax = sx + clear;         // air box
ay = sy + clear;
az_lo = -clear;
az_hi = h + clear;
nx = (sx + ax) / 2;      // far-field box, halfway between the substrate and the air box's faces
ny = (sy + ay) / 2;
nz_lo = az_lo / 2;
nz_hi = (h + az_hi) / 2;

If (!shell_blocks)
  Box(1) = {-ax - pml, -ay - pml, az_lo - pml, 2 * (ax + pml), 2 * (ay + pml), az_hi - az_lo + 2 * pml};
  shell_parts[] = {1};
EndIf
Box(2) = {-ax, -ay, az_lo, 2 * ax, 2 * ay, az_hi - az_lo};
Box(3) = {-nx, -ny, nz_lo, 2 * nx, 2 * ny, nz_hi - nz_lo};
Box(4) = {-sx, -sy, 0, 2 * sx, 2 * sy, h};
If (shell_blocks)
  // The shell as 26 blocks (six slabs, twelve bars, eight corners), so no tet straddles a plane where
  // one axis's stretch starts (docs/method/open_regions.md, "Shells: how the bends were made stable").
  xs[] = {-ax - pml, -ax, ax, ax + pml};
  ys[] = {-ay - pml, -ay, ay, ay + pml};
  zs[] = {az_lo - pml, az_lo, az_hi, az_hi + pml};
  shell_parts[] = {};
  For i In {0 : 2}
    For j In {0 : 2}
      For k In {0 : 2}
        If (i != 1 || j != 1 || k != 1)
          b = newv;
          Box(b) = {xs[i], ys[j], zs[k], xs[i + 1] - xs[i], ys[j + 1] - ys[j], zs[k + 1] - zs[k]};
          shell_parts[] += b;
        EndIf
      EndFor
    EndFor
  EndFor
EndIf
s_patch = news;
Rectangle(s_patch) = {-L / 2, -W / 2, h, L, W};     // the patch
// The port: the rectangle |y| <= wp/2, 0 <= z <= h in the plane x = x_feed.
p1 = newp; Point(p1) = {x_feed, -wp / 2, 0};
p2 = newp; Point(p2) = {x_feed, wp / 2, 0};
p3 = newp; Point(p3) = {x_feed, wp / 2, h};
p4 = newp; Point(p4) = {x_feed, -wp / 2, h};
l1 = newl; Line(l1) = {p1, p2};
l2 = newl; Line(l2) = {p2, p3};
l3 = newl; Line(l3) = {p3, p4};
l4 = newl; Line(l4) = {p4, p1};
c_feed = newll; Curve Loop(c_feed) = {l1, l2, l3, l4};
s_feed = news; Plane Surface(s_feed) = {c_feed};

If (coax)
  // The coaxial line runs from the ground down to the shell's outer face, where its end is the mode
  // port; its pin goes on up through the substrate to the patch at the feed point. The pin and the
  // outer conductor are holes in the mesh (PEC, as its outer surface is); the line's air is its own
  // volume, outside the shell's stretch.
  z_end = az_lo - pml;
  pin = newv; Cylinder(pin) = {x_feed, 0, z_end, 0, 0, h - z_end, coax_a};
  sleeve = newv; Cylinder(sleeve) = {x_feed, 0, z_end, 0, 0, -z_end, coax_b + coax_wall};
  holed[] = BooleanDifference{ Volume{shell_parts[], 2, 3, 4}; Delete; }{ Volume{pin, sleeve}; Delete; };
  outside = newv; Cylinder(outside) = {x_feed, 0, z_end, 0, 0, -z_end, coax_b};
  inside = newv; Cylinder(inside) = {x_feed, 0, z_end, 0, 0, -z_end, coax_a};
  gap[] = BooleanDifference{ Volume{outside}; Delete; }{ Volume{inside}; Delete; };
  // The line's section in the far-field box's bottom plane, which closes that box.
  rim = news; Disk(rim) = {x_feed, 0, nz_lo, coax_b};
  hole = news; Disk(hole) = {x_feed, 0, nz_lo, coax_a};
  cut[] = BooleanDifference{ Surface{rim}; Delete; }{ Surface{hole}; Delete; };
  BooleanFragments{ Volume{holed[], gap[]}; Delete; }{ Surface{s_patch, cut[]}; Delete; }
Else
  BooleanFragments{ Volume{shell_parts[], 2, 3, 4}; Delete; }{ Surface{s_patch, s_feed}; Delete; }
EndIf

e = 1e-5;            // slack of the bounding-box queries (OpenCASCADE pads its boxes)
all_volumes[] = Volume In BoundingBox{-ax - pml - e, -ay - pml - e, az_lo - pml - e, ax + pml + e, ay + pml + e, az_hi + pml + e};
inner[] = Volume In BoundingBox{-ax - e, -ay - e, az_lo - e, ax + e, ay + e, az_hi + e};
substrate[] = Volume In BoundingBox{-sx - e, -sy - e, -e, sx + e, sy + e, h + e};
air[] = inner[];
air[] -= substrate[];
shell[] = all_volumes[];
shell[] -= inner[];
If (coax)
  r_coax = coax_b + coax_wall;
  line[] = Volume In BoundingBox{x_feed - r_coax - e, -r_coax - e, z_end - e, x_feed + r_coax + e, r_coax + e, e};
  air[] -= line[];
  shell[] -= line[];
  Physical Volume("coax") = {line[]};
EndIf
Physical Volume("substrate") = {substrate[]};
Physical Volume("air") = {air[]};
Physical Volume("pml") = {shell[]};

ground[] = Surface In BoundingBox{-sx - e, -sy - e, -e, sx + e, sy + e, e};
patch[] = Surface In BoundingBox{-L / 2 - e, -W / 2 - e, h - e, L / 2 + e, W / 2 + e, h + e};
If (coax)
  // The line's aperture in the ground is no conductor, nor the pin's top (a face of the mesh's
  // surface, PEC as that is); the line's end on the outer face is the port.
  patch[] -= Surface In BoundingBox{x_feed - coax_a - e, -coax_a - e, h - e, x_feed + coax_a + e, coax_a + e, h + e};
  ground[] -= Surface In BoundingBox{x_feed - r_coax - e, -r_coax - e, -e, x_feed + r_coax + e, r_coax + e, e};
  feed[] = Surface In BoundingBox{x_feed - r_coax - e, -r_coax - e, z_end - e, x_feed + r_coax + e, r_coax + e, z_end + e};
Else
  feed[] = Surface In BoundingBox{x_feed - e, -wp / 2 - e, -e, x_feed + e, wp / 2 + e, h + e};
EndIf
Physical Surface("ground") = {ground[]};
Physical Surface("patch") = {patch[]};
Physical Surface("feed") = {feed[]};

box[] = Surface In BoundingBox{-nx - e, -ny - e, nz_lo - e, nx + e, ny + e, nz_hi + e};
inside[] = Surface In BoundingBox{-nx + e, -ny + e, nz_lo + e, nx - e, ny - e, nz_hi - e};
box[] -= inside[];
If (coax)
  // Not the line's walls and pin inside the box (faces of the mesh's surface), but its section where
  // it crosses the box's bottom, which closes the box (the guided wave enters through it; as an
  // aperture of radius 2.3 mm = lambda / 43 it radiates a negligible part).
  box[] -= Surface In BoundingBox{x_feed - r_coax - e, -r_coax - e, nz_lo - e, x_feed + r_coax + e, r_coax + e, h + e};
  box[] += Surface In BoundingBox{x_feed - r_coax - e, -r_coax - e, nz_lo - e, x_feed + r_coax + e, r_coax + e, nz_lo + e};
EndIf
Physical Surface("nf2ff") = {box[]};

outer[] = CombinedBoundary{ Volume{all_volumes[]}; };
If (coax)
  // The line's conductors, the faces of the mesh's surface about it: the pin, the outer conductor's
  // wall, the ring where it meets the ground; not its end (the port).
  near[] = Surface In BoundingBox{x_feed - r_coax - e, -r_coax - e, z_end - e, x_feed + r_coax + e, r_coax + e, h + e};
  away[] = outer[];
  away[] -= near[];
  coax_walls[] = outer[];
  coax_walls[] -= away[];
  coax_walls[] -= feed[];
  Physical Surface("coax_walls") = {coax_walls[]};
  outer[] -= feed[];
  outer[] -= coax_walls[];
EndIf
Physical Surface("boundary") = {outer[]};

// Mesh size: h_near within h of the patch and the port, h_far beyond grade.
Field[1] = Distance;
Field[1].SurfacesList = {patch[], feed[]};
Field[1].NNodesByEdge = 100;  // sampling of the surfaces (Gmsh 4.8's name)
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = h_near;
Field[2].SizeMax = h_far;
Field[2].DistMin = h;
Field[2].DistMax = grade;
If (coax)
  // Two to three elements across the line's gap (b - a = 1.3 mm), along it and around the pin.
  Field[3] = Box;
  Field[3].VIn = coax_size;
  Field[3].VOut = h_far;
  Field[3].XMin = x_feed - r_coax;
  Field[3].XMax = x_feed + r_coax;
  Field[3].YMin = -r_coax;
  Field[3].YMax = r_coax;
  Field[3].ZMin = z_end;
  Field[3].ZMax = h;
  Field[4] = Min;
  Field[4].FieldsList = {2, 3};
  Background Field = 4;
Else
  Background Field = 2;
EndIf

Mesh.MeshSizeMax = h_far;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Algorithm = 6;        // Frontal-Delaunay on the surfaces
Mesh.Algorithm3D = 1;      // Delaunay
Mesh.Optimize = 1;
Mesh.OptimizeNetgen = 0;
Mesh.ElementOrder = 1;
Mesh.RandomFactor = 1e-9;
General.NumThreads = 1;
Mesh.MaxNumThreads1D = 1;
Mesh.MaxNumThreads2D = 1;
Mesh.MaxNumThreads3D = 1;
