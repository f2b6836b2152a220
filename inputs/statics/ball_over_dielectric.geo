// A conducting ball of radius a, its centre h above a dielectric half-space, inside a grounded
// sphere of radius R centred on the interface: a quarter of it (x >= 0, y >= 0), whose two cut planes
// are natural (zero normal D) by symmetry. The mesh is graded from a / 12 on the ball to R / 12.
SetFactory("OpenCASCADE");
a = 0.1;
h = 0.2;
R = 2;
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
Field[2].SizeMin = a / 12;
Field[2].SizeMax = R / 12;
Field[2].DistMin = 0;
Field[2].DistMax = R;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Algorithm3D = 1;
