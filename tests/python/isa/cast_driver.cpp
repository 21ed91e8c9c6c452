// Driver for test_isa_casts.py: runs TCVT on the simulated core over a file
// of float32 values and writes the results, so Python can compare them to torch.
//   cast_driver <mode> <in.f32> <out.f16> <out.bf16> <out.i32> <back_from_f16.f32> <back_from_bf16.f32>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <pto/pto-inst.hpp>

PYPTO_ISA_DEFINE_CURRENT_CORE()

namespace {

constexpr int kChunk = 1024;

template <typename T>
std::vector<T> ReadAll(const char* path) {
  std::vector<T> v;
  FILE* f = std::fopen(path, "rb");
  if (!f) return v;
  T x;
  while (std::fread(&x, sizeof x, 1, f) == 1) v.push_back(x);
  std::fclose(f);
  return v;
}

template <typename T>
bool WriteAll(const char* path, const std::vector<T>& v) {
  FILE* f = std::fopen(path, "wb");
  if (!f) return false;
  bool ok = std::fwrite(v.data(), sizeof(T), v.size(), f) == v.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: %s mode in out_f16 out_bf16 out_i32 back_f16 back_bf16\n", argv[0]);
    return 2;
  }
  auto mode = static_cast<pto::RoundMode>(std::atoi(argv[1]));
  std::vector<float> in = ReadAll<float>(argv[2]);
  in.resize((in.size() + kChunk - 1) / kChunk * kChunk, 0.0f);

  static unsigned char vec[1 << 16];
  pto::SimCore core;
  core.buffer[0] = vec;
  core.capacity[0] = sizeof vec;
  pto::SetCurrentCore(&core);

  pto::Tile<pto::TileType::Vec, float, 1, kChunk> src, back;
  pto::Tile<pto::TileType::Vec, pto::half, 1, kChunk> h;
  pto::Tile<pto::TileType::Vec, pto::bfloat16, 1, kChunk> b;
  pto::Tile<pto::TileType::Vec, pto::int32_t, 1, kChunk> i;
  pto::TASSIGN(src, 0);
  pto::TASSIGN(back, 4 * kChunk);
  pto::TASSIGN(h, 8 * kChunk);
  pto::TASSIGN(b, 10 * kChunk);
  pto::TASSIGN(i, 12 * kChunk);

  std::vector<pto::uint16_t> out_h(in.size()), out_b(in.size());
  std::vector<pto::int32_t> out_i(in.size());
  std::vector<float> back_h(in.size()), back_b(in.size());
  for (size_t base = 0; base < in.size(); base += kChunk) {
    for (int k = 0; k < kChunk; ++k) src.data()[k] = in[base + k];
    pto::TCVT(h, src, mode);
    pto::TCVT(b, src, mode);
    pto::TCVT(i, src, mode);
    for (int k = 0; k < kChunk; ++k) {
      out_h[base + k] = h.data()[k].bits;
      out_b[base + k] = b.data()[k].bits;
      out_i[base + k] = i.data()[k];
    }
    pto::TCVT(back, h);
    for (int k = 0; k < kChunk; ++k) back_h[base + k] = back.data()[k];
    pto::TCVT(back, b);
    for (int k = 0; k < kChunk; ++k) back_b[base + k] = back.data()[k];
  }
  if (core.faulted()) {
    std::fprintf(stderr, "fault: %s in %s\n", pto::FaultKindName(core.fault.kind), core.fault.instruction);
    return 1;
  }
  bool ok = WriteAll(argv[3], out_h) && WriteAll(argv[4], out_b) && WriteAll(argv[5], out_i) &&
            WriteAll(argv[6], back_h) && WriteAll(argv[7], back_b);
  return ok ? 0 : 1;
}
