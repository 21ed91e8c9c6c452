// softmax_rows_fp32: out[r, :] = softmax(x[r, :]) over each row, FP32, on a
// vector core (AIV). Fused: each block of kBlockRows rows is loaded once,
// and max, exp(x - max), sum and the division run on the tile in place
// before one store, so the tensor crosses GM twice (once in, once out)
// instead of once per step as separate ops would.
//
// A row lives whole in one tile: the tile is kBlockRows x kMaxCols (64 KiB)
// and its valid region is the block's rows and the tensor's columns. The row
// reductions take a scratch tile of the block's shape (another 64 KiB; the
// a2a3 TROWMAX / TROWSUM reduce through it), the per-row max and sum are
// [rows, 1] column tiles: 128 KiB of the 184 KiB Vec buffer in all. A tensor
// wider than kMaxCols is a ValidShape fault of the first instruction that
// uses the block, which the runtime reports with the kernel's name; the last
// block may have fewer rows.
//
// PTO-ISA C++ (<pto/pto-inst.hpp>): it compiles against PyPTO's simulator
// and against the real pto-isa headers alike. The pipes run asynchronously on
// the chip: events order the load, the vector steps and the store (the
// simulator's pipe-hazard checker fails a run that lacks one).
#include <stdint.h>

#include <pto/pto-inst.hpp>

#include "pypto/runtime/kernel_args.h"

#ifndef PYPTO_LOC
#define PYPTO_LOC(line)
#endif

using namespace pto;

namespace {

constexpr int kBlockRows = 4;
constexpr int kMaxCols = 4096;
// A column tile's rows fill at least 32 bytes, as the ISA requires.
constexpr int kStatRows = 8;
constexpr uint64_t kRowsBytes = kBlockRows * kMaxCols * sizeof(float);
constexpr uint64_t kStatBytes = kStatRows * sizeof(float);

using RowsTile = Tile<TileType::Vec, float, kBlockRows, kMaxCols, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
// One value per row, [rows, 1]: the operand TROWMAX / TROWSUM write and TROWEXPAND* broadcast.
using RowStatTile = Tile<TileType::Vec, float, kStatRows, 1, BLayout::ColMajor, DYNAMIC, DYNAMIC>;
using Rows = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, DYNAMIC, DYNAMIC>>;

// `rows` whole rows of a 2-D tensor from row `row` on.
__aicore__ Rows RowsAt(__gm__ PyptoRtTensorDesc* t, int64_t row, int64_t rows) {
  __gm__ float* first = reinterpret_cast<__gm__ float*>(t->data) + row * t->strides[0];
  return Rows(first, Rows::Shape(rows, t->shape[1]), Rows::Stride(t->strides[0], t->strides[1]));
}

__aicore__ void SoftmaxBlock(__gm__ PyptoRtTensorDesc* x, __gm__ PyptoRtTensorDesc* out, int64_t row, int rows) {
  const int cols = static_cast<int>(x->shape[1]);
  RowsTile block(rows, cols);
  RowsTile scratch(rows, cols);
  RowStatTile row_max(rows, 1);
  RowStatTile row_sum(rows, 1);
  TASSIGN(block, 0x0);
  TASSIGN(scratch, kRowsBytes);
  TASSIGN(row_max, 2 * kRowsBytes);
  TASSIGN(row_sum, 2 * kRowsBytes + kStatBytes);
  auto x_rows = RowsAt(x, row, rows);
  TLOAD(block, x_rows);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  // Each step reads what the one before it wrote: the vector pipe must finish it first.
  TROWMAX(row_max, block, scratch);
  pipe_barrier(PIPE_V);
  TROWEXPANDEXPDIF(block, block, row_max);  // exp(x - max): no overflow for any finite row
  pipe_barrier(PIPE_V);
  TROWSUM(row_sum, block, scratch);
  pipe_barrier(PIPE_V);
  TROWEXPANDDIV(block, block, row_sum);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  auto out_rows = RowsAt(out, row, rows);
  TSTORE(out_rows, block);
  // The next block loads into this one's tile once the store has read it.
  set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
  wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
}

__aicore__ void Softmax(__gm__ PyptoRtTensorDesc* x, __gm__ PyptoRtTensorDesc* out) {
  const int64_t total = x->shape[0];
  for (int64_t row = 0; row < total; row += kBlockRows) {
    const int rows = static_cast<int>(total - row < kBlockRows ? total - row : kBlockRows);
    SoftmaxBlock(x, out, row, rows);
  }
}

}  // namespace

// Slots: the descriptors of x, out (manifest order).
extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args) {
  Softmax(reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[0]), reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[1]));
}
