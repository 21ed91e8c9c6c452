// A host program using the installed tile-ISA headers through PyPTO::pypto_isa:
// one TADD on a simulated core; exit status 0 when the sum is right.
#include <pto/pto-inst.hpp>

PYPTO_ISA_DEFINE_CURRENT_CORE()

int main() {
  static unsigned char vec[4096];
  pto::SimCore core;
  core.buffer[static_cast<int>(pto::TileType::Vec)] = vec;
  core.capacity[static_cast<int>(pto::TileType::Vec)] = sizeof vec;
  pto::SetCurrentCore(&core);
  pto::Tile<pto::TileType::Vec, float, 4, 8> a, b;
  pto::TASSIGN(a, 0);
  pto::TASSIGN(b, 128);
  pto::TEXPANDS(a, 1.5f);
  pto::TADD(b, a, a);
  return !core.faulted() && b.At(3, 7) == 3.0f ? 0 : 1;
}
