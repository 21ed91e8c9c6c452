// gemm_fp16: c[M, N] = a[M, K] @ b[K, N] with FP16 operands and FP32
// accumulation, on the cube core (AIC).
//
// The output is cut into kBlockM x kBlockN blocks; each block accumulates
// over K in kBlockK steps in one Acc tile (TMATMUL for the first step,
// TMATMUL_ACC after), the way the cube unit is fed: GM -> Mat (TLOAD) ->
// Left/Right (TMOV) -> Acc (TMATMUL) -> GM (TSTORE). The manifest requires
// M, N and K to be multiples of the block sizes, so every tile is full.
//
// Sizes for the a2a3 buffers: Left and Right hold 128 x 128 FP16 (32 KiB of
// 64 KiB), Acc holds 128 x 128 FP32 (64 KiB of 128 KiB). On the simulator
// large blocks pay: TMATMUL packs its operands once per call and then runs
// a register-blocked micro-kernel over the whole block.
//
// PTO-ISA C++ (<pto/pto-inst.hpp>): it compiles against PyPTO's simulator
// and against the real pto-isa headers alike.
#include <stdint.h>

#include <pto/pto-inst.hpp>

#include "pypto/runtime/kernel_args.h"

#ifndef PYPTO_LOC
#define PYPTO_LOC(line)
#endif

using namespace pto;

namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 128;

// Mat (L1) tiles in the cube's fractal layout.
template <typename T, int Rows, int Cols>
using MatTile = Tile<TileType::Mat, T, Rows, Cols, BLayout::ColMajor, Rows, Cols, SLayout::RowMajor, 512>;

// A Rows x Cols window of a 2-D tensor, with the tensor's strides.
template <typename T, int Rows, int Cols>
using Window = GlobalTensor<T, Shape<1, 1, 1, Rows, Cols>, Stride<1, 1, 1, DYNAMIC, DYNAMIC>>;

// The Rows x Cols window of a 2-D tensor whose first element is (row, col).
template <typename T, int Rows, int Cols>
__aicore__ Window<T, Rows, Cols> WindowAt(__gm__ PyptoRtTensorDesc* t, int64_t row, int64_t col) {
  using W = Window<T, Rows, Cols>;
  __gm__ T* first = reinterpret_cast<__gm__ T*>(t->data) + row * t->strides[0] + col * t->strides[1];
  return W(first, typename W::Shape(), typename W::Stride(t->strides[0], t->strides[1]));
}

struct Tiles {
  MatTile<half, kBlockM, kBlockK> a_mat;
  MatTile<half, kBlockK, kBlockN> b_mat;
  TileLeft<half, kBlockM, kBlockK> a_left;
  TileRight<half, kBlockK, kBlockN> b_right;
  TileAcc<float, kBlockM, kBlockN> acc;

  __aicore__ Tiles() {
    TASSIGN(a_mat, 0x0);
    TASSIGN(b_mat, kBlockM * kBlockK * sizeof(half));
    TASSIGN(a_left, 0x0);
    TASSIGN(b_right, 0x0);
    TASSIGN(acc, 0x0);
  }
};

// One K step of block (m, n): a[m, k] @ b[k, n], added to acc unless it is the first.
__aicore__ void MultiplyStep(Tiles& t, __gm__ PyptoRtTensorDesc* a, __gm__ PyptoRtTensorDesc* b, int64_t m,
                             int64_t n, int64_t k) {
  auto a_window = WindowAt<half, kBlockM, kBlockK>(a, m, k);
  auto b_window = WindowAt<half, kBlockK, kBlockN>(b, k, n);
  TLOAD(t.a_mat, a_window);
  TLOAD(t.b_mat, b_window);
  set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  TMOV(t.a_left, t.a_mat);
  TMOV(t.b_right, t.b_mat);
  set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  if (k == 0) {
    TMATMUL(t.acc, t.a_left, t.b_right);
  } else {
    TMATMUL_ACC(t.acc, t.acc, t.a_left, t.b_right);
  }
  // The next step loads into the Mat tiles the moves read, and moves into the operands the cube reads.
  set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
  wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
  set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
  wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
}

__aicore__ void Gemm(__gm__ PyptoRtTensorDesc* a, __gm__ PyptoRtTensorDesc* b, __gm__ PyptoRtTensorDesc* c) {
  const int64_t rows = a->shape[0], depth = a->shape[1], cols = b->shape[1];
  Tiles t;
  for (int64_t m = 0; m < rows; m += kBlockM) {
    for (int64_t n = 0; n < cols; n += kBlockN) {
      for (int64_t k = 0; k < depth; k += kBlockK) MultiplyStep(t, a, b, m, n, k);
      auto c_window = WindowAt<float, kBlockM, kBlockN>(c, m, n);
      set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
      wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
      TSTORE(c_window, t.acc);
      // The next block's first matmul overwrites the accumulator the store reads.
      set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
      wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
    }
  }
}

}  // namespace

// Slots: the descriptors of a, b, c (manifest order).
extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args) {
  Gemm(reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[0]), reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[1]),
       reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[2]));
}
