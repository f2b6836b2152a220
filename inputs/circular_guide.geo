// A circular waveguide, radius 10 mm, 60 mm long, read by inputs/circular_guide.toml (millimetres;
// the configuration's scale is 1e-3). The disk is meshed by Gmsh and extruded in 50 layers of tets,
// so the ports' sections ("port_in" at z = 0, "port_out" at z = 60 mm) and every layer between them
// are the same.
SetFactory("OpenCASCADE");
Disk(1) = {0, 0, 0, 10};
Mesh.MeshSizeMin = 1.2;
Mesh.MeshSizeMax = 1.2;
guide[] = Extrude {0, 0, 60} { Surface{1}; Layers{50}; };
Physical Surface("port_in") = {1};
Physical Surface("port_out") = {guide[0]};
Physical Volume("guide") = {guide[1]};
