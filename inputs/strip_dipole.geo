// A centre-fed half-wave strip dipole for 1 GHz (free-space wavelength 0.2998 m), read by
// inputs/strip_dipole.toml. Units: metres.
//
// A PEC strip of zero thickness in the plane y = 0, width w along x, along z from -L/2 to L/2,
// cut at the centre by the feed gap z in [-g/2, g/2]:
//   "arms"     (physical surface, PEC): x in [-w/2, w/2], y = 0, g/2 <= |z| <= L/2 (two rectangles)
//   "feed"     (physical surface, the lumped port): x in [-w/2, w/2], y = 0, z in [-g/2, g/2];
//              its edges z = -g/2 and z = g/2 are the arms' inner edges (the same mesh edges)
//   "air"      (physical volume): the box |x| <= w/2 + clear, |y| <= clear, |z| <= L/2 + clear
//   "nf2ff"    (physical surface): a closed box halfway between the strip and the air box's faces
//   "pml"      (physical volume): a shell of thickness pml around the air box
//   "boundary" (physical surface): the shell's outer faces (PEC by default)
// The sheets are fragmented with the volumes (OpenCASCADE BooleanFragments), so they are interior
// faces of the mesh: every triangle of "arms" and "feed" is shared by two tets.
//
// Mesh: mean edges of about lambda/15 (0.02 m) far away, sizes of w/2 within w/2 of the strip,
// growing linearly over the next 0.12 m (a Distance + Threshold field); 3D Delaunay, one thread, so
// the mesh is the same on every run (checked: identical .msh files). Gmsh 4.8.4 gives 194,145 tets
// (108,660 in the air, 85,485 in the shell), 33,906 nodes; edges 1.35 mm (the strip's corners) to
// 36 mm, smallest inradius 0.17 mm.
// Check it with: gmsh -3 inputs/strip_dipole.geo -o /tmp/strip_dipole.msh -format msh41
// The parameters below are DefineConstants: each keeps a value given before (gmsh -setnumber NAME
// VALUE, or a .geo that sets it and then Includes this file), e.g. a coarser mesh for a test.

DefineConstant[ lambda = 0.2998 ];     // free-space wavelength at 1 GHz
DefineConstant[ L = 0.47 * lambda ];   // arm-to-arm (end-to-end) length, 0.1409 m: a thin strip's resonance
DefineConstant[ w = 0.004 ];           // strip width (equivalent wire radius w/4 = 1 mm)
DefineConstant[ g = 0.004 ];           // feed gap
DefineConstant[ clear = 0.1 ];         // air beyond the strip's sides and ends (a third of a wavelength)
DefineConstant[ pml = 0.1 ];           // thickness of the matched shell (4.8 mean edges)
DefineConstant[ h_far = 0.016 ];       // Gmsh's size away from the strip: Delaunay's edges come out
                                       // about 1.3 times longer on average, 0.021 m = lambda/14
DefineConstant[ h_near = w / 2 ];      // element size on and near the strip
DefineConstant[ grade = 0.12 ];        // distance from the strip over which the size grows to h_far
DefineConstant[ nf2ff_at = 0.5 ];      // where the far-field box lies, from the strip (0) to the air box (1)

SetFactory("OpenCASCADE");
Geometry.OCCParallel = 0;

ax = w / 2 + clear;       // air box half-extents
ay = clear;
az = L / 2 + clear;
nx = w / 2 + nf2ff_at * (ax - w / 2);    // far-field box, between the strip and the air box's faces
ny = nf2ff_at * ay;
nz = L / 2 + nf2ff_at * (az - L / 2);

Box(1) = {-ax - pml, -ay - pml, -az - pml, 2 * (ax + pml), 2 * (ay + pml), 2 * (az + pml)};
Box(2) = {-ax, -ay, -az, 2 * ax, 2 * ay, 2 * az};
Box(3) = {-nx, -ny, -nz, 2 * nx, 2 * ny, 2 * nz};

// The strip: six points along each long edge, three rectangles (lower arm, feed, upper arm).
zs[] = {-L / 2, -g / 2, g / 2, L / 2};
For i In {0:3}
  Point(101 + i) = {-w / 2, 0, zs[i]};
  Point(111 + i) = {w / 2, 0, zs[i]};
EndFor
For i In {0:2}
  Line(101 + i) = {101 + i, 102 + i};   // x = -w/2
  Line(111 + i) = {111 + i, 112 + i};   // x = +w/2
EndFor
For i In {0:3}
  Line(121 + i) = {101 + i, 111 + i};   // across the strip at zs[i]
EndFor
For i In {0:2}
  Curve Loop(101 + i) = {101 + i, 122 + i, -(111 + i), -(121 + i)};
  Plane Surface(101 + i) = {101 + i};
EndFor

BooleanFragments{ Volume{1, 2, 3}; Delete; }{ Surface{101, 102, 103}; Delete; }

e = 1e-6;
all_volumes[] = Volume In BoundingBox{-ax - pml - e, -ay - pml - e, -az - pml - e, ax + pml + e, ay + pml + e, az + pml + e};
air[] = Volume In BoundingBox{-ax - e, -ay - e, -az - e, ax + e, ay + e, az + e};
shell[] = all_volumes[];
shell[] -= air[];
Physical Volume("air") = {air[]};
Physical Volume("pml") = {shell[]};

upper[] = Surface In BoundingBox{-w / 2 - e, -e, g / 2 - e, w / 2 + e, e, L / 2 + e};
lower[] = Surface In BoundingBox{-w / 2 - e, -e, -L / 2 - e, w / 2 + e, e, -g / 2 + e};
feed[] = Surface In BoundingBox{-w / 2 - e, -e, -g / 2 - e, w / 2 + e, e, g / 2 + e};
Physical Surface("arms") = {upper[], lower[]};
Physical Surface("feed") = {feed[]};

box[] = Surface In BoundingBox{-nx - e, -ny - e, -nz - e, nx + e, ny + e, nz + e};
inside[] = Surface In BoundingBox{-nx + e, -ny + e, -nz + e, nx - e, ny - e, nz - e};
box[] -= inside[];
Physical Surface("nf2ff") = {box[]};

outer[] = CombinedBoundary{ Volume{all_volumes[]}; };
Physical Surface("boundary") = {outer[]};

// Mesh size: h_near within h_near of the strip, h_far beyond grade.
Field[1] = Distance;
Field[1].SurfacesList = {upper[], lower[], feed[]};
Field[1].NNodesByEdge = 100;  // sampling of the sheets (Gmsh 4.8's name)
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = h_near;
Field[2].SizeMax = h_far;
Field[2].DistMin = h_near;
Field[2].DistMax = grade;
Background Field = 2;

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
