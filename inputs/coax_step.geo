// A coaxial line whose outer conductor steps from 2.3 mm to 3.494 mm radius halfway (inner radius
// 1 mm): 49.94 ohm into 75.0 ohm, 10 mm of each (millimetres; the configuration's scale is 1e-3).
SetFactory("OpenCASCADE");
a = 1;
b1 = 2.3;
b2 = 3.494;
L = 10;
Cylinder(1) = {0, 0, 0, 0, 0, L, b1};
Cylinder(2) = {0, 0, L, 0, 0, L, b2};
Cylinder(3) = {0, 0, 0, 0, 0, 2 * L, a};
BooleanUnion(4) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
BooleanDifference(5) = { Volume{4}; Delete; }{ Volume{3}; Delete; };
l = 1e-6;
Physical Surface("port_in") = Surface In BoundingBox{-b2 - l, -b2 - l, -l, b2 + l, b2 + l, l};
Physical Surface("port_out") = Surface In BoundingBox{-b2 - l, -b2 - l, 2 * L - l, b2 + l, b2 + l, 2 * L + l};
Physical Volume("line") = {5};
Mesh.MeshSizeMin = 0.35;
Mesh.MeshSizeMax = 0.35;
Mesh.Algorithm3D = 1;
