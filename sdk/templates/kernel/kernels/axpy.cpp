// axpy_fp32: y = alpha * x + y for x, y of [R, 64] FP32, on a vector core.
// Blocks of kBlockRows rows: load both, TMULS + TADD in place, store y.
//
// PTO-ISA C++ (<pto/pto-inst.hpp>): it compiles against PyPTO's simulator
// and against the real pto-isa headers alike.
#include <stdint.h>

#include <pto/pto-inst.hpp>

#include "pypto/runtime/kernel_args.h"

// The simulator's fault messages name the source line a PYPTO_LOC(line);
// statement gives the instructions after it; elsewhere it means nothing.
#ifndef PYPTO_LOC
#define PYPTO_LOC(line)
#endif

using namespace pto;

namespace {

constexpr int kBlockRows = 16;
constexpr int kCols = 64;

using Block = Tile<TileType::Vec, float, kBlockRows, kCols>;
using Window = GlobalTensor<float, Shape<1, 1, 1, kBlockRows, kCols>, Stride<1, 1, 1, DYNAMIC, DYNAMIC>>;

// The kBlockRows rows of tensor `t` from row `row` on, with its strides.
__aicore__ Window BlockAt(__gm__ PyptoRtTensorDesc* t, int64_t row) {
  __gm__ float* first = reinterpret_cast<__gm__ float*>(t->data) + row * t->strides[0];
  return Window(first, Window::Shape(), Window::Stride(t->strides[0], t->strides[1]));
}

__aicore__ void Axpy(__gm__ PyptoRtTensorDesc* x, __gm__ PyptoRtTensorDesc* y, float alpha) {
  Block tx, ty;
  TASSIGN(tx, 0x0);
  TASSIGN(ty, kBlockRows * kCols * sizeof(float));
  for (int64_t row = 0; row < x->shape[0]; row += kBlockRows) {
    auto x_block = BlockAt(x, row);
    auto y_block = BlockAt(y, row);
    TLOAD(tx, x_block);
    TLOAD(ty, y_block);
    // The chip's pipes run asynchronously: each step waits for the one whose result it reads.
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(tx, tx, alpha);
    pipe_barrier(PIPE_V);
    TADD(ty, ty, tx);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(y_block, ty);
    // The next rows load into tx and ty once the store and the vector pipe are done with them.
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
  }
}

}  // namespace

// One 64-bit slot per argument, in manifest order: the address of each
// tensor's PyptoRtTensorDesc (x, y), then each scalar's bits (alpha).
extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args) {
  union {
    uint64_t u64;
    float val;
  } alpha;
  alpha.u64 = static_cast<uint64_t>(args[2]);
  Axpy(reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[0]), reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[1]),
       alpha.val);
}
