// axpy_fp32: y = alpha * x + y for x, y of [R, 64] FP32, on a vector core.
// Blocks of kBlockRows rows: load both, TMULS + TADD in place, store y.
#include "pypto/isa/kernel_abi.h"

using namespace pto;

namespace {

constexpr int kBlockRows = 16;
constexpr int kCols = 64;

using Block = TileVec<float, kBlockRows, kCols>;
using Window = GlobalTensor<float, Shape<kBlockRows, kCols>, Stride<DYNAMIC, DYNAMIC>>;

Window BlockAt(const PyptoRtTensorDesc& t, int64_t row) {
  return Window(static_cast<float*>(t.data) + row * t.strides[0], {}, DescStrides(t));
}

void Axpy(const PyptoRtTensorDesc& x, const PyptoRtTensorDesc& y, float alpha) {
  Block tx, ty;
  TASSIGN(tx, 0x0);
  TASSIGN(ty, kBlockRows * kCols * sizeof(float));
  for (int64_t row = 0; row < x.shape[0]; row += kBlockRows) {
    auto x_block = BlockAt(x, row);
    auto y_block = BlockAt(y, row);
    TLOAD(tx, x_block);
    TLOAD(ty, y_block);
    TMULS(tx, tx, alpha);
    TADD(ty, ty, tx);
    TSTORE(y_block, ty);
  }
}

}  // namespace

// Slots: the tensors x, y, then the scalar alpha (manifest order).
extern "C" void kernel_entry(const int64_t* args, PyptoRtCoreContext* ctx) {
  Axpy(TensorArg(args, 0), TensorArg(args, 1), ScalarArg<float>(args, 2));
  pypto_sim_finish_kernel(ctx, __FILE__);
}
