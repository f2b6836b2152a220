// A generic aircraft-like PEC body for the plane-wave examples (inputs/aircraft/aircraft.toml and
// inputs/aircraft/aircraft_fine.toml), included by aircraft.geo and aircraft_fine.geo, which set h (the
// elements' size away from the body) and h_body (on it). Metres; the nose at the origin, the
// fuselage along +x (1 m long), the wings in the plane z = 0, the fin up +z.
SetFactory("OpenCASCADE");
Cylinder(1) = {0.15, 0, 0, 0.65, 0, 0, 0.06};                // fuselage, x 0.15 .. 0.8
Cone(2) = {0, 0, 0, 0.15, 0, 0, 0.02, 0.06};                 // nose
Cone(3) = {0.8, 0, 0, 0.2, 0, 0, 0.06, 0.02};                // tail cone, x 0.8 .. 1
Box(4) = {0.35, -0.45, -0.01, 0.2, 0.9, 0.02};               // wings: chord 0.2, span 0.9
Box(5) = {0.86, -0.17, -0.006, 0.1, 0.34, 0.012};            // horizontal tail
Box(6) = {0.86, -0.006, 0, 0.12, 0.012, 0.2};                // fin
body() = BooleanUnion{ Volume{1}; Delete; }{ Volume{2, 3, 4, 5, 6}; Delete; };
// Nested boxes around the body (x -0.1 .. 1.1, y -0.55 .. 0.55, z -0.16 .. 0.3 for the total field),
// each 0.1 m out from the last: the far-field box, the domain's boundary, then the matched shell.
Box(10) = {-0.1, -0.55, -0.16, 1.2, 1.1, 0.46};
Box(11) = {-0.2, -0.65, -0.26, 1.4, 1.3, 0.66};
Box(12) = {-0.3, -0.75, -0.36, 1.6, 1.5, 0.86};
Box(13) = {-0.45, -0.9, -0.51, 1.9, 1.8, 1.16};
BooleanFragments{ Volume{body(), 10, 11, 12, 13}; Delete; }{}
e = 1e-4;
// The body is a hole: its surface stays, as the total field's boundary (PEC by default).
Delete { Volume{Volume In BoundingBox{-e, -0.45 - e, -0.06 - e, 1 + e, 0.45 + e, 0.2 + e}}; }
total() = Volume In BoundingBox{-0.1 - e, -0.55 - e, -0.16 - e, 1.1 + e, 0.55 + e, 0.3 + e};
inside() = Volume In BoundingBox{-0.3 - e, -0.75 - e, -0.36 - e, 1.3 + e, 0.75 + e, 0.5 + e};
scattered() = inside();
scattered() -= total();
pml() = Volume{:};
pml() -= inside();
Physical Volume("total") = total();
Physical Volume("scattered") = scattered();
Physical Volume("pml") = pml();
Physical Surface("body") = Surface In BoundingBox{-e, -0.45 - e, -0.06 - e, 1 + e, 0.45 + e, 0.2 + e};
far() = Surface In BoundingBox{-0.2 - e, -0.65 - e, -0.26 - e, 1.2 + e, 0.65 + e, 0.4 + e};
far() -= Surface In BoundingBox{-0.1 - e, -0.55 - e, -0.16 - e, 1.1 + e, 0.55 + e, 0.3 + e};
Physical Surface("nf2ff") = far();
MeshSize{ PointsOf{ Volume{:}; } } = h;
MeshSize{ PointsOf{ Surface{Surface In BoundingBox{-e, -0.45 - e, -0.06 - e, 1 + e, 0.45 + e, 0.2 + e}}; } } = h_body;
Mesh.MeshSizeMax = h;
Mesh.MeshSizeExtendFromBoundary = 1;
Mesh.Algorithm3D = 1; // Delaunay: the same mesh on every run and thread count
