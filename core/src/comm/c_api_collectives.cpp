// The collectives of pypto/comm/collectives.h (pld.tensor.* composites and
// host builtins), built on the engine's put/get/notify/wait, and their C
// interface (c_api_comm.h). A call runs inside the comm domain of its window
// operands: ranks below are domain ranks. Every call is one or more self-clearing credit
// barriers (spec/distributed.md §7.1): barrier g adds 1 to this rank's cell on
// every peer and waits until every peer's cell here reaches g; the epilogue
// subtracts the call's barrier count from each cell, so the signal is all zero
// again when the call returns and may be reused back to back.
#include "pypto/comm/collectives.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "c_api_support.h"
#include "pypto/isa/types.h"
#include "pypto/runtime/c_api_comm.h"

namespace {

using pypto::ThrowValueError;
using pypto::comm::AtomicType;
using pypto::comm::Domain;
using pypto::comm::DomainText;
using pypto::comm::Engine;
using pypto::comm::NotifyOp;
using pypto::comm::ReduceOp;
using pypto::comm::WaitCmp;
using pypto::ir::DataType;
using pypto::comm::capi::Guard;
using pypto::comm::capi::Running;

// A tensor descriptor read as `rows` rows of `row_bytes` contiguous bytes (dim 0 is the row).
struct Rows {
  char* data = nullptr;
  DataType dtype;
  int64_t rows = 0;
  int64_t row_elements = 0;
  int64_t row_bytes = 0;
};

Rows RowsOf(const PyptoRtTensorDesc* t, const std::string& op, const std::string& what) {
  if (t == nullptr || t->data == nullptr || t->ndim < 1 || t->ndim > PYPTO_RT_MAX_DIMS) {
    ThrowValueError("comm " + op + ": " + what + " is not a tensor (NULL, or no dims)");
  }
  auto dtype = DataType::FromCode(t->dtype);
  if (!dtype) ThrowValueError("comm " + op + ": " + what + " has unknown dtype code " + std::to_string(t->dtype));
  int64_t expected_stride = 1;
  for (int d = t->ndim - 1; d >= 0; --d) {
    if (t->shape[d] > 1 && t->strides[d] != expected_stride) {
      ThrowValueError("comm " + op + ": " + what + " is not contiguous (dim " + std::to_string(d) + " has stride " +
                      std::to_string(t->strides[d]) + ", expected " + std::to_string(expected_stride) +
                      "); collectives move whole row-major tensors");
    }
    expected_stride *= t->shape[d];
  }
  Rows r;
  r.data = static_cast<char*>(t->data);
  r.dtype = *dtype;
  r.rows = t->shape[0];
  r.row_elements = t->ndim == 1 ? 1 : expected_stride / t->shape[0];
  r.row_bytes = dtype->StorageBytes(r.row_elements);
  return r;
}

// The domain of a window operand; every other window operand of the call must be in the same one.
std::shared_ptr<const Domain> SameDomain(Engine& engine, const pypto::comm::WindowAddress& where,
                                         const std::shared_ptr<const Domain>& domain, const std::string& op,
                                         const std::string& what) {
  if (domain == nullptr || where.domain->id == domain->id) return where.domain;
  ThrowValueError("comm " + op + " on rank " + std::to_string(engine.Rank()) + ": " + what + " is a window of " +
                  DomainText(*where.domain, engine.WorldSize()) + " but the call's other windows are in " +
                  DomainText(*domain, engine.WorldSize()) + "; a collective runs in one comm domain, so allocate "
                  "all its windows with the same members");
}

// The INT32 signal of a call: cells addressed by (row, column); a 1-D signal has column 0 only.
// Its window's comm domain is the call's (`domain`, when another window operand set it already).
class Signal {
 public:
  Signal(Engine& engine, const PyptoRtTensorDesc* t, const std::string& op, const std::shared_ptr<const Domain>& domain,
         const std::function<int64_t(int)>& min_rows, int64_t min_cols)
      : engine_(engine), op_(op) {
    if (t == nullptr || t->data == nullptr || t->ndim < 1 || t->ndim > 2 ||
        t->dtype != static_cast<int32_t>(DataType::INT32.code())) {
      ThrowValueError("comm " + op + ": the signal must be an INT32 window tensor of 1 or 2 dims");
    }
    auto where = engine.Resolve(t->data, op);
    domain_ = SameDomain(engine, where, domain, op, "the signal");
    const int64_t rows = min_rows(domain_->size());
    int64_t cols = t->ndim == 2 ? t->shape[1] : 1;
    if (t->shape[0] < rows || cols < min_cols) {
      ThrowValueError("comm " + op + ": the signal has shape [" + std::to_string(t->shape[0]) + ", " +
                      std::to_string(cols) + "] but this call needs at least [" + std::to_string(rows) + ", " +
                      std::to_string(min_cols) + "] (one row per rank of " +
                      DomainText(*domain_, engine.WorldSize()) + ")");
    }
    desc_ = *t;
    window_ = where.window;
  }

  const Domain& domain() const { return *domain_; }

  int64_t Offset(int64_t row, int64_t col) const {
    int64_t element = row * desc_.strides[0] + (desc_.ndim == 2 ? col * desc_.strides[1] : 0);
    auto where = engine_.Resolve(static_cast<const int32_t*>(desc_.data) + element, op_);
    return where.offset;
  }

  // Credit barrier `g` of this call; the cell of sender s is cell(s).
  void Barrier(int g, const std::function<int64_t(int)>& cell) const {
    const int me = domain_->rank;
    for (int peer = 0; peer < domain_->size(); ++peer) {
      if (peer != me) engine_.Notify(window_, peer, cell(me), 1, NotifyOp::kAtomicAdd);
    }
    for (int src = 0; src < domain_->size(); ++src) {
      if (src != me) engine_.Wait(window_, cell(src), g, WaitCmp::kGe);
    }
  }

  // Returns every sender's cell to zero after `barriers` barriers.
  void Clear(int barriers, const std::function<int64_t(int)>& cell) const {
    const int me = domain_->rank;
    for (int src = 0; src < domain_->size(); ++src) {
      if (src != me) engine_.Notify(window_, me, cell(src), -barriers, NotifyOp::kAtomicAdd);
    }
  }

  // Cells of the [NR, 1] layout: row = sender.
  std::function<int64_t(int)> BySender() const {
    return [this](int src) { return Offset(src, 0); };
  }

 private:
  Engine& engine_;
  std::string op_;
  std::shared_ptr<const Domain> domain_;
  PyptoRtTensorDesc desc_{};
  int32_t window_ = -1;
};

// Signal row counts: one row per rank of the domain, or the ring's 2*(NR-1) rounds.
int64_t OneRowPerRank(int ranks) { return ranks; }
int64_t RingRounds(int ranks) { return 2 * (ranks - 1); }

template <ReduceOp Op, class T>
T Combine(T a, T b) {
  if constexpr (Op == ReduceOp::kSum) {
    return a + b;
  } else if constexpr (Op == ReduceOp::kMax) {
    return std::max(a, b);
  } else if constexpr (Op == ReduceOp::kMin) {
    return std::min(a, b);
  } else {
    return a * b;
  }
}

// acc[i] = acc[i] op in[i]; half types compute in FP32 and round once per step, as the vector unit does.
// The op is a template argument so that the loop has no branch in it (and vectorizes for the plain types).
template <ReduceOp Op, class Storage, class Compute>
void ReduceLoop(char* acc, const char* in, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    Storage a, b;
    std::memcpy(&a, acc + i * sizeof(Storage), sizeof(Storage));
    std::memcpy(&b, in + i * sizeof(Storage), sizeof(Storage));
    Storage r = static_cast<Storage>(Combine<Op, Compute>(static_cast<Compute>(a), static_cast<Compute>(b)));
    std::memcpy(acc + i * sizeof(Storage), &r, sizeof(Storage));
  }
}

template <class Storage, class Compute>
void ReduceAs(char* acc, const char* in, int64_t count, ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return ReduceLoop<ReduceOp::kSum, Storage, Compute>(acc, in, count);
    case ReduceOp::kMax: return ReduceLoop<ReduceOp::kMax, Storage, Compute>(acc, in, count);
    case ReduceOp::kMin: return ReduceLoop<ReduceOp::kMin, Storage, Compute>(acc, in, count);
    case ReduceOp::kProd: return ReduceLoop<ReduceOp::kProd, Storage, Compute>(acc, in, count);
  }
}

void Reduce(char* acc, const char* in, int64_t count, DataType dtype, ReduceOp op, const std::string& name) {
  if (dtype == DataType::FP32) return ReduceAs<float, float>(acc, in, count, op);
  if (dtype == DataType::FP16) return ReduceAs<pto::half, float>(acc, in, count, op);
  if (dtype == DataType::BF16) return ReduceAs<pto::bfloat16, float>(acc, in, count, op);
  if (dtype == DataType::FP64) return ReduceAs<double, double>(acc, in, count, op);
  if (dtype == DataType::INT32) return ReduceAs<int32_t, int32_t>(acc, in, count, op);
  if (dtype == DataType::INT16) return ReduceAs<int16_t, int16_t>(acc, in, count, op);
  if (dtype == DataType::INT8) return ReduceAs<int8_t, int8_t>(acc, in, count, op);
  if (dtype == DataType::INT64) return ReduceAs<int64_t, int64_t>(acc, in, count, op);
  ThrowValueError("comm " + name + ": dtype " + dtype.name() +
                  " cannot be reduced; use FP32, FP16, BF16, FP64, INT8, INT16, INT32 or INT64");
}

struct WindowRows {
  Rows rows;
  int32_t window = -1;
  int64_t offset = 0;  // of row 0
  std::shared_ptr<const Domain> domain;
};

WindowRows InWindow(Engine& engine, const PyptoRtTensorDesc* t, const std::string& op, const std::string& what,
                    const std::shared_ptr<const Domain>& domain = nullptr) {
  WindowRows w;
  w.rows = RowsOf(t, op, what);
  auto where = engine.Resolve(w.rows.data, op);
  w.window = where.window;
  w.offset = where.offset;
  w.domain = SameDomain(engine, where, domain, op, what);
  return w;
}

void CheckRowCount(Engine& engine, const Rows& rows, const Domain& domain, const std::string& op,
                   const std::string& what) {
  if (rows.rows != domain.size()) {
    ThrowValueError("comm " + op + ": " + what + " has " + std::to_string(rows.rows) + " rows but " +
                    DomainText(domain, engine.WorldSize()) + " has " + std::to_string(domain.size()) +
                    " ranks; give it one row per rank of the domain");
  }
}

void MeshAllReduce(Engine& engine, const WindowRows& data, const Signal& signal, ReduceOp op) {
  const int64_t bytes = data.rows.rows * data.rows.row_bytes;
  const int64_t count = data.rows.rows * data.rows.row_elements;
  std::vector<char> acc(data.rows.data, data.rows.data + bytes);
  std::vector<char> peer_data(bytes);
  auto cell = signal.BySender();
  signal.Barrier(1, cell);  // every rank's data is staged
  for (int peer = 0; peer < signal.domain().size(); ++peer) {
    if (peer == signal.domain().rank) continue;
    engine.Get(peer_data.data(), bytes, data.window, peer, data.offset, bytes, 1, bytes);
    Reduce(acc.data(), peer_data.data(), count, data.rows.dtype, op, "allreduce");
  }
  signal.Barrier(2, cell);  // every rank has read every peer: now the data may be overwritten
  std::memcpy(data.rows.data, acc.data(), bytes);
  signal.Clear(2, cell);
}

// Reduce-scatter then allgather over P segments, each round pulling one segment from the left
// neighbour. Round t uses signal row t: a ready barrier before the pull, a read-done barrier before
// the segment is overwritten.
void RingAllReduce(Engine& engine, const WindowRows& data, const Signal& signal, ReduceOp op) {
  const int P = signal.domain().size(), me = signal.domain().rank, left = (me + P - 1) % P;
  const int64_t count = data.rows.rows * data.rows.row_elements;
  const int64_t element = data.rows.dtype.get_byte();
  auto begin = [&](int s) { return count * s / P; };
  std::vector<char> pulled(count * element);
  for (int t = 0; t < 2 * (P - 1); ++t) {
    auto cell = [&signal, t](int src) { return signal.Offset(t, src); };
    const bool scatter = t < P - 1;
    const int k = scatter ? t : t - (P - 1);
    const int segment = scatter ? ((me - 1 - k) % P + P) % P : ((me - k) % P + P) % P;
    const int64_t first = begin(segment), n = begin(segment + 1) - first;
    signal.Barrier(1, cell);
    engine.Get(pulled.data(), n * element, data.window, left, data.offset + first * element, n * element, 1,
               n * element);
    signal.Barrier(2, cell);
    char* mine = data.rows.data + first * element;
    if (scatter) {
      Reduce(mine, pulled.data(), n, data.rows.dtype, op, "allreduce (ring)");
    } else {
      std::memcpy(mine, pulled.data(), n * element);
    }
  }
  for (int t = 0; t < 2 * (P - 1); ++t) signal.Clear(2, [&signal, t](int src) { return signal.Offset(t, src); });
}

}  // namespace

namespace pypto::comm::collectives {

void AllReduce(Engine& engine, const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal, ReduceOp op,
               bool ring) {
  WindowRows rows = InWindow(engine, data, "allreduce", "data");
  const int P = rows.domain->size();
  if (P == 1) return;  // nothing to reduce with (a one-rank ring has no rounds, so no signal rows)
  if (ring) {
    RingAllReduce(engine, rows, Signal(engine, signal, "allreduce", rows.domain, RingRounds, P), op);
  } else {
    MeshAllReduce(engine, rows, Signal(engine, signal, "allreduce", rows.domain, OneRowPerRank, 1), op);
  }
}

void Barrier(Engine& engine, const PyptoRtTensorDesc* signal) {
  Signal sig(engine, signal, "barrier", nullptr, OneRowPerRank, 1);
  sig.Barrier(1, sig.BySender());
  sig.Clear(1, sig.BySender());
}

void Broadcast(Engine& engine, const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal, int32_t root) {
  WindowRows rows = InWindow(engine, data, "broadcast", "data");
  Signal sig(engine, signal, "broadcast", rows.domain, OneRowPerRank, 1);
  const Domain& domain = sig.domain();
  if (root < 0 || root >= domain.size()) {
    ThrowValueError("comm broadcast: root " + std::to_string(root) + " is not a rank of " +
                    DomainText(domain, engine.WorldSize()) + " (domain ranks 0.." + std::to_string(domain.size() - 1) +
                    ")");
  }
  const int64_t bytes = rows.rows.rows * rows.rows.row_bytes;
  sig.Barrier(1, sig.BySender());  // the root has staged its data
  if (domain.rank != root) engine.Get(rows.rows.data, bytes, rows.window, root, rows.offset, bytes, 1, bytes);
  sig.Barrier(2, sig.BySender());  // every rank has read the root's data before it may change it
  sig.Clear(2, sig.BySender());
}

void AllGather(Engine& engine, const PyptoRtTensorDesc* mine, const PyptoRtTensorDesc* out,
               const PyptoRtTensorDesc* signal) {
  Rows local = RowsOf(mine, "allgather", "mine");
  WindowRows dst = InWindow(engine, out, "allgather", "out");
  Signal sig(engine, signal, "allgather", dst.domain, OneRowPerRank, 1);
  const Domain& domain = sig.domain();
  CheckRowCount(engine, dst.rows, domain, "allgather", "out");
  const int64_t bytes = local.rows * local.row_bytes;
  if (bytes != dst.rows.row_bytes) {
    ThrowValueError("comm allgather: mine holds " + std::to_string(bytes) + " bytes but a row of out holds " +
                    std::to_string(dst.rows.row_bytes) + "; mine is [1, SIZE] and out [NR, SIZE]");
  }
  for (int peer = 0; peer < domain.size(); ++peer) {
    engine.Put(dst.window, peer, dst.offset + domain.rank * bytes, bytes, local.data, bytes, 1, bytes, local.dtype,
               AtomicType::kNone);
  }
  sig.Barrier(1, sig.BySender());
  sig.Clear(1, sig.BySender());
}

void ReduceScatter(Engine& engine, const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal, ReduceOp op) {
  if (op != ReduceOp::kSum) ThrowValueError("comm reduce_scatter: only op Sum (0) is supported");
  WindowRows rows = InWindow(engine, data, "reduce_scatter", "data");
  Signal sig(engine, signal, "reduce_scatter", rows.domain, OneRowPerRank, 1);
  const Domain& domain = sig.domain();
  CheckRowCount(engine, rows.rows, domain, "reduce_scatter", "data");
  const int me = domain.rank;
  const int64_t bytes = rows.rows.row_bytes;
  char* my_row = rows.rows.data + me * bytes;
  std::vector<char> acc(my_row, my_row + bytes), pulled(bytes);
  sig.Barrier(1, sig.BySender());  // every rank's rows are staged
  for (int peer = 0; peer < domain.size(); ++peer) {
    if (peer == me) continue;
    engine.Get(pulled.data(), bytes, rows.window, peer, rows.offset + me * bytes, bytes, 1, bytes);
    Reduce(acc.data(), pulled.data(), rows.rows.row_elements, rows.rows.dtype, op, "reduce_scatter");
  }
  sig.Barrier(2, sig.BySender());  // every peer has read my rows before row `me` changes
  std::memcpy(my_row, acc.data(), bytes);
  sig.Clear(2, sig.BySender());
}

void AllToAll(Engine& engine, const PyptoRtTensorDesc* stage, const PyptoRtTensorDesc* out,
              const PyptoRtTensorDesc* signal) {
  Rows local = RowsOf(stage, "all_to_all", "stage");
  WindowRows dst = InWindow(engine, out, "all_to_all", "out");
  Signal sig(engine, signal, "all_to_all", dst.domain, OneRowPerRank, 1);
  const Domain& domain = sig.domain();
  CheckRowCount(engine, local, domain, "all_to_all", "stage");
  CheckRowCount(engine, dst.rows, domain, "all_to_all", "out");
  const int64_t bytes = local.row_bytes;
  if (bytes != dst.rows.row_bytes) {
    ThrowValueError("comm all_to_all: a row of stage holds " + std::to_string(bytes) +
                    " bytes but a row of out holds " + std::to_string(dst.rows.row_bytes) + "; make them equal");
  }
  for (int peer = 0; peer < domain.size(); ++peer) {
    engine.Put(dst.window, peer, dst.offset + domain.rank * bytes, bytes, local.data + peer * bytes, bytes, 1,
               bytes, local.dtype, AtomicType::kNone);
  }
  sig.Barrier(1, sig.BySender());
  sig.Clear(1, sig.BySender());
}

void AllToAllV(Engine& engine, const PyptoRtTensorDesc* input, const PyptoRtTensorDesc* target,
               const PyptoRtTensorDesc* signal, const PyptoRtTensorDesc* send_counts,
               const PyptoRtTensorDesc* recv_counts) {
  const std::string op = "all_to_all_v";
  Rows local = RowsOf(input, op, "input");
  WindowRows dst = InWindow(engine, target, op, "target");
  Signal sig(engine, signal, op, dst.domain, OneRowPerRank, 1);
  WindowRows published = InWindow(engine, recv_counts, op, "recv_counts", dst.domain);
  Rows counts = RowsOf(send_counts, op, "send_counts");
  const Domain& domain = sig.domain();
  const int nr = domain.size();
  for (const auto& [what, rows] : {std::pair{"send_counts", counts}, std::pair{"recv_counts", published.rows}}) {
    if (rows.dtype != DataType::INT32 || rows.rows != nr || rows.row_elements != 1) {
      ThrowValueError("comm all_to_all_v: " + std::string(what) + " must be INT32 [NR] or [NR, 1] with NR = " +
                      std::to_string(nr) + " (the ranks of " + DomainText(domain, engine.WorldSize()) + "), got " +
                      rows.dtype.name() + " with " + std::to_string(rows.rows) + " rows of " +
                      std::to_string(rows.row_elements) + " elements");
    }
  }
  if (dst.rows.rows == 0 || dst.rows.rows % nr != 0) {
    ThrowValueError("comm all_to_all_v: target has " + std::to_string(dst.rows.rows) + " rows, not a positive "
                    "multiple of NR = " + std::to_string(nr) + "; it is [NR*MAX_RECV, SIZE], one block of MAX_RECV "
                    "rows per sender");
  }
  if (local.rows != dst.rows.rows || local.row_bytes != dst.rows.row_bytes) {
    ThrowValueError("comm all_to_all_v: input has " + std::to_string(local.rows) + " rows of " +
                    std::to_string(local.row_bytes) + " bytes but target " + std::to_string(dst.rows.rows) +
                    " rows of " + std::to_string(dst.rows.row_bytes) + "; both are [NR*MAX_RECV, SIZE]");
  }
  // A window that is two operands would be overwritten by the peers while it is read.
  std::vector<std::pair<std::string, int32_t>> windows = {
      {"target", dst.window}, {"signal", engine.Resolve(signal->data, op).window}, {"recv_counts", published.window}};
  for (const auto& [what, data] : {std::pair{"input", local.data}, std::pair{"send_counts", counts.data}}) {
    if (auto where = engine.Locate(data)) windows.emplace_back(what, where->window);
  }
  for (size_t i = 0; i < windows.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (windows[i].second == windows[j].second) {
        ThrowValueError("comm all_to_all_v: " + windows[j].first + " and " + windows[i].first + " lie in one window (" +
                        std::to_string(windows[i].second) + "); give each operand a window of its own");
      }
    }
  }
  const int64_t max_recv = dst.rows.rows / nr;
  const int64_t block = max_recv * dst.rows.row_bytes;
  const auto* wanted = reinterpret_cast<const int32_t*>(counts.data);
  for (int peer = 0; peer < nr; ++peer) {
    if (wanted[peer] < 0) {
      ThrowValueError("comm all_to_all_v: send_counts[" + std::to_string(peer) + "] is " +
                      std::to_string(wanted[peer]) + "; a row count is >= 0");
    }
  }
  for (int peer = 0; peer < nr; ++peer) {
    // The whole block travels whatever the count: the receiver finds sender s's rows at block s.
    engine.Put(dst.window, peer, dst.offset + domain.rank * block, block, local.data + peer * block, block, 1, block,
               local.dtype, AtomicType::kNone);
    int32_t count = static_cast<int32_t>(std::min<int64_t>(wanted[peer], max_recv));
    engine.Notify(published.window, peer, published.offset + domain.rank * published.rows.row_bytes, count,
                  NotifyOp::kSet);
  }
  sig.Barrier(1, sig.BySender());
  sig.Clear(1, sig.BySender());
}

}  // namespace pypto::comm::collectives

extern "C" {

const char* pypto_comm_allreduce(const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal, int32_t op,
                                 int32_t ring) {
  return Guard([&] {
    Engine& engine = Running("allreduce");
    auto reduce = pypto::comm::ReduceOpFromInt(op, "comm allreduce: op");
    pypto::comm::collectives::AllReduce(engine, data, signal, reduce, ring != 0);
  });
}

const char* pypto_comm_barrier(const PyptoRtTensorDesc* signal) {
  return Guard([&] { pypto::comm::collectives::Barrier(Running("barrier"), signal); });
}

const char* pypto_comm_broadcast(const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal, int32_t root) {
  return Guard([&] { pypto::comm::collectives::Broadcast(Running("broadcast"), data, signal, root); });
}

const char* pypto_comm_allgather(const PyptoRtTensorDesc* mine, const PyptoRtTensorDesc* out,
                                 const PyptoRtTensorDesc* signal) {
  return Guard([&] { pypto::comm::collectives::AllGather(Running("allgather"), mine, out, signal); });
}

const char* pypto_comm_reduce_scatter(const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal, int32_t op) {
  return Guard([&] {
    Engine& engine = Running("reduce_scatter");
    auto reduce = pypto::comm::ReduceOpFromInt(op, "comm reduce_scatter: op");
    pypto::comm::collectives::ReduceScatter(engine, data, signal, reduce);
  });
}

const char* pypto_comm_all_to_all(const PyptoRtTensorDesc* stage, const PyptoRtTensorDesc* out,
                                  const PyptoRtTensorDesc* signal) {
  return Guard([&] { pypto::comm::collectives::AllToAll(Running("all_to_all"), stage, out, signal); });
}

const char* pypto_comm_all_to_all_v(const PyptoRtTensorDesc* input, const PyptoRtTensorDesc* target,
                                    const PyptoRtTensorDesc* signal, const PyptoRtTensorDesc* send_counts,
                                    const PyptoRtTensorDesc* recv_counts) {
  return Guard([&] {
    pypto::comm::collectives::AllToAllV(Running("all_to_all_v"), input, target, signal, send_counts, recv_counts);
  });
}

}  // extern "C"
