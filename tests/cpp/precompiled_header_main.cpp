// The one source of pypto_test_pch, the target that builds the precompiled header the C++ test drivers share
// (tests/cpp/CMakeLists.txt); it is an executable only so that the header is compiled with the drivers' flags.
int main() { return 0; }
