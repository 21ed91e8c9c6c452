// A simulated core with real buffers for the tile-ISA tests.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include <pto/pto-inst.hpp>

namespace pypto::isa_test {

class IsaTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kCapacity = 256 * 1024;

  void SetUp() override {
    for (int s = 0; s < pto::kNumTileTypes; ++s) {
      buffers_[s].assign(kCapacity, 0xCD);
      core_.buffer[s] = buffers_[s].data();
      core_.capacity[s] = kCapacity;
    }
    pto::SetCurrentCore(&core_);
  }
  void TearDown() override { pto::SetCurrentCore(nullptr); }

  // Next free, aligned address in `space`.
  template <typename TileT>
  void Place(TileT& tile) {
    uint64_t& next = next_[static_cast<int>(TileT::Loc)];
    pto::TASSIGN(tile, next);
    next += (TileT::kBytes + 31) / 32 * 32;
    ASSERT_FALSE(core_.faulted()) << pto::FaultKindName(core_.fault.kind);
  }

  template <typename TileT>
  void Fill(TileT& tile, double lo, double hi) {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (int i = 0; i < TileT::kSize; ++i) {
      tile.data()[i] = static_cast<typename TileT::DType>(static_cast<float>(dist(rng_)));
    }
  }

  pto::SimCore core_;
  std::vector<unsigned char> buffers_[pto::kNumTileTypes];
  uint64_t next_[pto::kNumTileTypes] = {};
  std::mt19937 rng_{1234};
};

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace pypto::isa_test
