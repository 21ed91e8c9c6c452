// Distributed ops of simulated kernels (pld.*): signals and one-sided transfers between ranks, on
// the comm engine of the kernel's process (core/include/pypto/runtime/c_api_comm.h). Window
// operands are GlobalTensor views into window buffers; the engine maps their local addresses to
// the same offsets on the peer. A failure (a timed-out wait, a peer out of range) is a Comm fault of
// the instruction, reported at the user's line with the engine's message.
#pragma once

#include "pypto/isa/instructions.h"
#include "pypto/runtime/c_api_comm.h"

namespace pto {
namespace comm_detail {

inline bool Check(const char* error, const char* instruction) {
  if (error == nullptr) return true;
  if (SimCore* core = pypto_sim_current_core()) core->RaiseDetail(FaultKind::Comm, instruction, error);
  return false;
}

// Calls fn(element_offset, first_row, rows) for each run of the view's 2-D rows that are evenly
// strided (one per index of the outer three dims), so a transfer is one engine call per run.
template <typename GT, typename Fn>
inline bool ForEachRowRun(const GT& gt, Fn&& fn) {
  int64_t planes = gt.shape[0] * gt.shape[1] * gt.shape[2];
  int64_t rows = gt.shape[3];
  for (int64_t p = 0; p < planes; ++p) {
    if (!fn(gt.RowOffset(p * rows), p * rows, rows)) return false;
  }
  return true;
}

template <typename GT>
inline bool ContiguousRows(const GT& gt, const char* instruction) {
  if (gt.stride[4] == 1) return true;
  return Check("the window region's elements are not contiguous within a row (column stride != 1); transfer a "
               "row-major region", instruction);
}

// The window address a comm context (pld.get_comm_ctx(window)) holds.
inline const void* ContextAddress(int64_t ctx) {
  return reinterpret_cast<const void*>(static_cast<__INTPTR_TYPE__>(ctx));
}

inline int32_t DomainQuery(int32_t value, const char* instruction) {
  if (value < 0) {
    Check("the comm context is not the address of a window buffer of this rank (or no comm engine runs); pass "
          "pld.get_comm_ctx(dt) of a pld.DistributedTensor", instruction);
  }
  return value;
}

}  // namespace comm_detail

// pld.rank(ctx) / pld.nranks(ctx): this rank's position in, and the rank count of, the comm domain of the
// window whose address is `ctx`. Ranks inside a domain are dense: in the domain of world ranks {1, 2}, world
// rank 1 is rank 0. Peers of the transfers and signals below are such domain ranks.
inline int32_t COMM_RANK(int64_t ctx) {
  return comm_detail::DomainQuery(pypto_comm_domain_rank(comm_detail::ContextAddress(ctx)), "pld.rank");
}

inline int32_t COMM_NRANKS(int64_t ctx) {
  return comm_detail::DomainQuery(pypto_comm_domain_size(comm_detail::ContextAddress(ctx)), "pld.nranks");
}

// tile = rank peer's window region (pld.tile.remote_load).
template <typename TileT, typename GT>
inline void TREMOTE_LOAD(TileT& tile, const GT& gt, int32_t peer) {
  static_assert(kSame<typename TileT::DType, typename GT::DType>, "TREMOTE_LOAD keeps the dtype");
  static_assert(TileT::kRowMajor, "TREMOTE_LOAD fills a row-major tile");
  if (!detail::Usable(tile, "TREMOTE_LOAD") || !comm_detail::ContiguousRows(gt, "TREMOTE_LOAD")) return;
  using T = typename TileT::DType;
  int64_t cols = tile.GetValidCol();
  int64_t valid_rows = tile.GetValidRow();
  bool ok = comm_detail::ForEachRowRun(gt, [&](int64_t offset, int64_t first, int64_t rows) {
    if (first >= valid_rows) return true;
    int64_t count = first + rows > valid_rows ? valid_rows - first : rows;
    return comm_detail::Check(
        pypto_comm_get(&tile.At(static_cast<int>(first), 0), TileT::kCols * static_cast<int64_t>(sizeof(T)), peer,
                       gt.data_ + offset, gt.stride[3] * static_cast<int64_t>(sizeof(T)), count,
                       cols * static_cast<int64_t>(sizeof(T))),
        "TREMOTE_LOAD");
  });
  if (!ok) return;
  detail::Finish(tile, "TREMOTE_LOAD");
  // The window is another rank's memory, which no pipe of this core orders: only the tile is checked.
  detail::CountLoad("TREMOTE_LOAD", tile, valid_rows * cols, gt, 0, 0);
}

// rank peer's window region = tile (or += tile with atomic add; dtype: the pypto DataType code).
template <typename GT, typename TileT>
inline void TREMOTE_STORE(GT& gt, const TileT& tile, int32_t peer, int32_t atomic, int32_t dtype) {
  static_assert(kSame<typename TileT::DType, typename GT::DType>, "TREMOTE_STORE keeps the dtype");
  static_assert(TileT::kRowMajor, "TREMOTE_STORE reads a row-major tile");
  if (!detail::Usable(tile, "TREMOTE_STORE") || !comm_detail::ContiguousRows(gt, "TREMOTE_STORE")) return;
  using T = typename TileT::DType;
  int64_t cols = tile.GetValidCol();
  int64_t valid_rows = tile.GetValidRow();
  comm_detail::ForEachRowRun(gt, [&](int64_t offset, int64_t first, int64_t rows) {
    if (first >= valid_rows) return true;
    int64_t count = first + rows > valid_rows ? valid_rows - first : rows;
    return comm_detail::Check(
        pypto_comm_put(peer, gt.data_ + offset, gt.stride[3] * static_cast<int64_t>(sizeof(T)),
                       &tile.At(static_cast<int>(first), 0), TileT::kCols * static_cast<int64_t>(sizeof(T)), count,
                       cols * static_cast<int64_t>(sizeof(T)), dtype, atomic),
        "TREMOTE_STORE");
  });
  // The window is another rank's memory, which no pipe of this core orders: only the tile is checked.
  detail::CountStore("TREMOTE_STORE", tile, valid_rows * cols, valid_rows * cols * static_cast<int64_t>(sizeof(T)),
                     gt, 0, 0);
}

// rank peer's window region dst = (or +=) local region src, global memory to global memory (pld.tensor.put).
template <typename DstGT, typename SrcGT>
inline void TPUT(DstGT& dst, int32_t peer, const SrcGT& src, int32_t atomic, int32_t dtype) {
  static_assert(kSame<typename DstGT::DType, typename SrcGT::DType>, "TPUT keeps the dtype");
  using T = typename DstGT::DType;
  if (!comm_detail::ContiguousRows(dst, "TPUT") || !comm_detail::ContiguousRows(src, "TPUT")) return;
  comm_detail::ForEachRowRun(dst, [&](int64_t offset, int64_t first, int64_t rows) {
    return comm_detail::Check(
        pypto_comm_put(peer, dst.data_ + offset, dst.stride[3] * static_cast<int64_t>(sizeof(T)),
                       src.data_ + src.RowOffset(first), src.stride[3] * static_cast<int64_t>(sizeof(T)), rows,
                       dst.Cols() * static_cast<int64_t>(sizeof(T)), dtype, atomic),
        "TPUT");
  });
}

// local region dst = rank peer's window region src (pld.tensor.get).
template <typename DstGT, typename SrcGT>
inline void TGET(DstGT& dst, int32_t peer, const SrcGT& src) {
  static_assert(kSame<typename DstGT::DType, typename SrcGT::DType>, "TGET keeps the dtype");
  using T = typename DstGT::DType;
  if (!comm_detail::ContiguousRows(dst, "TGET") || !comm_detail::ContiguousRows(src, "TGET")) return;
  comm_detail::ForEachRowRun(src, [&](int64_t offset, int64_t first, int64_t rows) {
    return comm_detail::Check(
        pypto_comm_get(dst.data_ + dst.RowOffset(first), dst.stride[3] * static_cast<int64_t>(sizeof(T)), peer,
                       src.data_ + offset, src.stride[3] * static_cast<int64_t>(sizeof(T)), rows,
                       src.Cols() * static_cast<int64_t>(sizeof(T))),
        "TGET");
  });
}

// Rank peer's signal cell (the first element of `cell`) = value (op Set) or += value (op AtomicAdd).
template <typename GT>
inline void TNOTIFY(GT& cell, int32_t peer, int32_t value, int32_t op) {
  comm_detail::Check(pypto_comm_notify(peer, cell.data_, value, op), "TNOTIFY");
}

// Waits until this rank's signal cell == (cmp Eq) or >= (cmp Ge) expected; `signal` is the whole
// signal window, for the report when the wait times out.
template <typename GT>
inline void TWAIT(const PyptoRtTensorDesc& signal, const GT& cell, int32_t expected, int32_t cmp) {
  comm_detail::Check(pypto_comm_wait(&signal, cell.data_, expected, cmp), "TWAIT");
}

// Registers "this rank's signal cell >= expected" with the runtime and returns (pld.system.defer_wait):
// the kernel's task completes once it holds. `source_file` names the user's file for the report of a
// condition that never holds, which comes after the kernel returned.
template <typename GT>
inline void TDEFER_WAIT(const PyptoRtTensorDesc& signal, const GT& cell, int32_t expected, const char* source_file) {
  comm_detail::Check(
      pypto_comm_defer_wait(&signal, cell.data_, expected, source_file, static_cast<int32_t>(SourceLine())),
      "TDEFER_WAIT");
}

// Collectives on whole windows (pld.tensor.allreduce / barrier / broadcast / allgather / reduce_scatter /
// all_to_all / all_to_all_v in a kernel): the engine runs the credit-barrier protocol on the signal window.
inline void TALLREDUCE(const PyptoRtTensorDesc& data, const PyptoRtTensorDesc& signal, int32_t op, int32_t ring) {
  comm_detail::Check(pypto_comm_allreduce(&data, &signal, op, ring), "TALLREDUCE");
}

inline void TBARRIER(const PyptoRtTensorDesc& signal) {
  comm_detail::Check(pypto_comm_barrier(&signal), "TBARRIER");
}

inline void TBROADCAST(const PyptoRtTensorDesc& data, const PyptoRtTensorDesc& signal, int32_t root) {
  comm_detail::Check(pypto_comm_broadcast(&data, &signal, root), "TBROADCAST");
}

inline void TALLGATHER(const PyptoRtTensorDesc& mine, const PyptoRtTensorDesc& out, const PyptoRtTensorDesc& signal) {
  comm_detail::Check(pypto_comm_allgather(&mine, &out, &signal), "TALLGATHER");
}

inline void TREDUCE_SCATTER(const PyptoRtTensorDesc& data, const PyptoRtTensorDesc& signal, int32_t op) {
  comm_detail::Check(pypto_comm_reduce_scatter(&data, &signal, op), "TREDUCE_SCATTER");
}

inline void TALL_TO_ALL(const PyptoRtTensorDesc& stage, const PyptoRtTensorDesc& out,
                        const PyptoRtTensorDesc& signal) {
  comm_detail::Check(pypto_comm_all_to_all(&stage, &out, &signal), "TALL_TO_ALL");
}

// pld.tensor.all_to_all_v: whole MAX_RECV-row blocks travel; recv_counts[s] says how many rows of block s count.
inline void TALL_TO_ALL_V(const PyptoRtTensorDesc& input, const PyptoRtTensorDesc& target,
                          const PyptoRtTensorDesc& signal, const PyptoRtTensorDesc& send_counts,
                          const PyptoRtTensorDesc& recv_counts) {
  comm_detail::Check(pypto_comm_all_to_all_v(&input, &target, &signal, &send_counts, &recv_counts), "TALL_TO_ALL_V");
}

}  // namespace pto
