#include "half_accumulate.h"

#include <cstring>

#include "pypto/isa/types.h"

namespace pypto::comm_mpi {
namespace {

constexpr MPI_Aint kWordBytes = 4;

uint16_t AddHalf(uint16_t a, uint16_t b, bool bf16) {
  if (bf16) {
    float sum = static_cast<float>(pto::bfloat16::FromBits(a)) + static_cast<float>(pto::bfloat16::FromBits(b));
    return pto::bfloat16(sum).bits;
  }
  float sum = static_cast<float>(pto::half::FromBits(a)) + static_cast<float>(pto::half::FromBits(b));
  return pto::half(sum).bits;
}

// The word after adding the addends; a lane without an addend keeps its bits
// (adding +0 would turn a -0 into +0).
uint32_t AddLanes(uint32_t word, const uint16_t addend[2], const bool has[2], bool bf16) {
  uint16_t lanes[2];
  std::memcpy(lanes, &word, sizeof(word));
  for (int lane = 0; lane < 2; ++lane) {
    if (has[lane]) lanes[lane] = AddHalf(lanes[lane], addend[lane], bf16);
  }
  std::memcpy(&word, lanes, sizeof(word));
  return word;
}

// One aligned word: read it atomically, then compare-and-swap until no other
// writer got in between.
void AccumulateWord(MPI_Win win, int peer, MPI_Aint word_disp, const uint16_t addend[2], const bool has[2], bool bf16,
                    const MpiCheck& check) {
  int32_t current = 0;
  check(MPI_Fetch_and_op(nullptr, &current, MPI_INT32_T, peer, word_disp, MPI_NO_OP, win),
        "MPI_Fetch_and_op (read for a half-precision atomic add)");
  check(MPI_Win_flush(peer, win), "MPI_Win_flush");
  while (true) {
    uint32_t bits = 0;
    std::memcpy(&bits, &current, sizeof(bits));
    uint32_t next_bits = AddLanes(bits, addend, has, bf16);
    int32_t next = 0;
    std::memcpy(&next, &next_bits, sizeof(next));
    int32_t seen = 0;
    check(MPI_Compare_and_swap(&next, &current, &seen, MPI_INT32_T, peer, word_disp, win),
          "MPI_Compare_and_swap (half-precision atomic add)");
    check(MPI_Win_flush(peer, win), "MPI_Win_flush");
    if (seen == current) return;
    current = seen;
  }
}

}  // namespace

void AccumulateHalfRow(MPI_Win win, int peer, MPI_Aint pad, int64_t offset, const char* src, int64_t bytes,
                       ir::DataType dtype, const MpiCheck& check) {
  const bool bf16 = dtype == ir::DataType::BF16;
  const int64_t end = offset + bytes;
  for (int64_t word = offset - offset % kWordBytes; word < end; word += kWordBytes) {
    uint16_t addend[2] = {0, 0};
    bool has[2] = {false, false};
    for (int lane = 0; lane < 2; ++lane) {
      int64_t element = word + lane * 2;
      if (element < offset || element >= end) continue;
      std::memcpy(&addend[lane], src + (element - offset), sizeof(uint16_t));
      has[lane] = true;
    }
    AccumulateWord(win, peer, pad + word, addend, has, bf16, check);
  }
}

}  // namespace pypto::comm_mpi
