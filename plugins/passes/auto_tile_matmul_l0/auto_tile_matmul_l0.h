// AutoTileMatmulL0: every tile.matmul / tile.matmul_acc of an InCore, AIC or
// AIV function whose operands or result exceed the platform's Left, Right or
// Acc capacity becomes loops over L0-sized blocks: M and N block loops, a K
// loop whose first step is tile.matmul and whose later steps are
// tile.matmul_acc. See README.md for the rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pypto/backend/platform.h"
#include "pypto/pass/pass.h"

namespace pypto::passes {

class AutoTileMatmulL0Pass : public pass::Pass {
 public:
  static constexpr const char* kName = "AutoTileMatmulL0";
  static constexpr const char* kDescription =
      "Split tile matmuls that exceed Left, Right or Acc into M/N block loops and a K loop of matmul_acc";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // The K loop carries its accumulator as an iter_arg; every new value is a single assignment.
  pass::PropertySet required() const override { return {pass::IRProperty::SSAForm}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::MatmulsFitL0}; }
  // Reads Left, Right and Acc capacities and the Acc row alignment from ctx.platform().
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

// The extents of one matmul C[M, N] = A[M, K] x B[K, N] and its dtypes.
struct MatmulExtents {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  ir::DataType operand_dtype = ir::DataType::FP16;
  ir::DataType acc_dtype = ir::DataType::FP32;
};

// One L0 block: A[m, k] in Left, B[k, n] in Right, C[m, n] in Acc.
struct L0Tile {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool operator==(const L0Tile& o) const { return m == o.m && n == o.n && k == o.k; }
};

// Bytes a block occupies in each L0 buffer: whole fractal blocks
// (ir::StorageShape), with Acc rows rounded up to the platform's Acc row
// alignment as well.
int64_t LeftBytes(const MatmulExtents& e, const L0Tile& t);
int64_t RightBytes(const MatmulExtents& e, const L0Tile& t);
int64_t AccBytes(const MatmulExtents& e, const L0Tile& t, const backend::Platform& platform);

// Whether the whole matmul fits as one block.
bool FitsL0(const MatmulExtents& e, const backend::Platform& platform);

// The block sizes the pass uses: each a divisor of its extent, either the
// whole extent or a multiple of the cube's 16 (m: of the platform's Acc row
// alignment too). M is kept as large as possible, then N, then K: k shrinks
// first, then n, then m. nullopt when no such block fits.
std::optional<L0Tile> ChooseL0Tile(const MatmulExtents& e, const backend::Platform& platform);

// The rewrite itself, for `platform`'s capacities.
ir::ProgramPtr AutoTileMatmulL0(const ir::ProgramPtr& program, const backend::Platform& platform);

}  // namespace pypto::passes
