// A parallel-plate TEM line: the box x in [0, W], y in [0, H], z in [0, Lz], meshed structured
// (transfinite): nx x ny x nz cells, each hexahedral cell split into six tetrahedra (no Recombine:
// the mesh holds tetrahedra only). Units: metres.
//
//   "plates" (physical surface): y = 0 and y = H, the two conductors (PEC)
//   "sides"  (physical surface): x = 0 and x = W (PMC, the natural condition, keeps the TEM mode
//            uniform across x)
//   "port"   (physical surface): z = 0
//   "load"   (physical surface): z = Lz
//   "line"   (physical volume): the box
// The TEM mode has E along y, V = E_y H between the plates, H_x = E_y / eta0, and the line's
// characteristic impedance is Z0 = eta0 H / W (376.7 ohms for W = H).
//
// Parameters (DefineConstant: each keeps a value already given, so a test can override it with
// `gmsh -setnumber Lz 0.2 ...`, or by a .geo that sets it and then Includes this file):
//   W  = 0.01  width along x (m)             nx = 4    cells along x
//   H  = 0.01  plate separation along y (m)  ny = 4    cells along y
//   Lz = 0.1   length along z (m)            nz = 100  cells along z
// Defaults: 4 x 4 x 100 cells of 2.5 x 2.5 x 1 mm, 9,600 tets, 2,525 nodes.
// Check it with: gmsh -3 inputs/parallel_plate_line.geo -o /tmp/parallel_plate_line.msh -format msh41

DefineConstant[ W = 0.01, H = 0.01, Lz = 0.1, nx = 4, ny = 4, nz = 100 ];

Point(1) = {0, 0, 0};
Point(2) = {W, 0, 0};
Point(3) = {W, H, 0};
Point(4) = {0, H, 0};
Point(5) = {0, 0, Lz};
Point(6) = {W, 0, Lz};
Point(7) = {W, H, Lz};
Point(8) = {0, H, Lz};

Line(1) = {1, 2};    // along x
Line(2) = {4, 3};
Line(3) = {5, 6};
Line(4) = {8, 7};
Line(5) = {1, 4};    // along y
Line(6) = {2, 3};
Line(7) = {5, 8};
Line(8) = {6, 7};
Line(9) = {1, 5};    // along z
Line(10) = {2, 6};
Line(11) = {3, 7};
Line(12) = {4, 8};

Curve Loop(1) = {1, 6, -2, -5};     // z = 0
Curve Loop(2) = {3, 8, -4, -7};     // z = Lz
Curve Loop(3) = {1, 10, -3, -9};    // y = 0
Curve Loop(4) = {2, 11, -4, -12};   // y = H
Curve Loop(5) = {5, 12, -7, -9};    // x = 0
Curve Loop(6) = {6, 11, -8, -10};   // x = W
For i In {1:6}
  Plane Surface(i) = {i};
EndFor
Surface Loop(1) = {1:6};
Volume(1) = {1};

Transfinite Curve{1:4} = nx + 1;
Transfinite Curve{5:8} = ny + 1;
Transfinite Curve{9:12} = nz + 1;
Transfinite Surface{1:6};
Transfinite Volume{1};

Physical Surface("plates") = {3, 4};
Physical Surface("sides") = {5, 6};
Physical Surface("port") = {1};
Physical Surface("load") = {2};
Physical Volume("line") = {1};

Mesh.ElementOrder = 1;
Mesh.RecombineAll = 0;
