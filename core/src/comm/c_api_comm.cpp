// The C interface over the running comm::Engine. Errors never cross it as
// exceptions: each becomes a message in a thread-local string. A wait that
// timed out also prints its signal tensor, so the hang shows which cells
// never arrived.
#include "pypto/runtime/c_api_comm.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "c_api_support.h"
#include "pypto/runtime/runtime.h"

static_assert(PYPTO_COMM_MAX_DEFERRED_CONDITIONS == pypto::runtime::kMaxDeferredConditions &&
                  PYPTO_COMM_MAX_DEFERRED_TASKS == pypto::runtime::kMaxDeferredTasks,
              "the C ABI states the runtime's limits on deferred waits");

namespace {

using pypto::comm::Engine;
using pypto::comm::capi::Guard;
using pypto::comm::capi::Running;

// The most cells a wait report prints.
constexpr int64_t kTableCells = 64;

pypto::ir::DataType DTypeOf(int32_t code, const std::string& op) {
  auto dtype = pypto::ir::DataType::FromCode(code);
  if (!dtype) pypto::ThrowValueError("comm " + op + ": unknown dtype code " + std::to_string(code));
  return *dtype;
}

int64_t Count(const PyptoRtTensorDesc& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

// Element `linear` (row-major over the shape) as an index vector.
std::vector<int64_t> Unflatten(const PyptoRtTensorDesc& t, int64_t linear) {
  std::vector<int64_t> index(t.ndim);
  for (int d = t.ndim - 1; d >= 0; --d) {
    index[d] = linear % t.shape[d];
    linear /= t.shape[d];
  }
  return index;
}

const int32_t* Address(const PyptoRtTensorDesc& t, const std::vector<int64_t>& index) {
  int64_t element = 0;
  for (int d = 0; d < t.ndim; ++d) element += index[d] * t.strides[d];
  return static_cast<const int32_t*>(t.data) + element;
}

// The row-major position of the element at `cell`, or -1 when no element lies there.
int64_t PositionOf(const PyptoRtTensorDesc& t, const int32_t* cell) {
  for (int64_t i = 0, n = Count(t); i < n; ++i) {
    if (Address(t, Unflatten(t, i)) == cell) return i;
  }
  return -1;
}

std::string IndexText(const std::vector<int64_t>& index) {
  std::ostringstream os;
  os << "[";
  for (size_t d = 0; d < index.size(); ++d) os << (d ? "," : "") << index[d];
  os << "]";
  return os.str();
}

std::string ShapeText(const PyptoRtTensorDesc& t) {
  std::ostringstream os;
  os << "[";
  for (int d = 0; d < t.ndim; ++d) os << (d ? ", " : "") << t.shape[d];
  os << "]";
  return os.str();
}

// The positions to print: the whole tensor when it is small, else the cell's
// row (last dim), trimmed to the cells around the waited one.
std::pair<int64_t, int64_t> TableRange(const PyptoRtTensorDesc& t, int64_t position) {
  int64_t n = Count(t);
  if (n <= kTableCells || position < 0) return {0, std::min(n, kTableCells)};
  int64_t row = t.ndim > 0 ? t.shape[t.ndim - 1] : 1;
  int64_t begin = position / row * row;
  int64_t end = begin + row;
  if (end - begin > kTableCells) {
    begin = std::max(begin, position - kTableCells / 2);
    end = std::min(end, begin + kTableCells);
  }
  return {begin, end};
}

std::string ReadCell(Engine& engine, const int32_t* address) {
  auto where = engine.Locate(address);
  if (!where) return "?";
  return std::to_string(engine.ReadSignal(where->window, where->offset));
}

// "signal [4, 1] on rank 2: [0,0]=1 [1,0]=0 ...; the wait is on [1,0]"
std::string SignalTable(Engine& engine, const PyptoRtTensorDesc* signal, const int32_t* cell) {
  if (signal == nullptr || signal->data == nullptr || signal->ndim < 0 || signal->ndim > PYPTO_RT_MAX_DIMS) return "";
  const PyptoRtTensorDesc& t = *signal;
  int64_t position = PositionOf(t, cell);
  auto [begin, end] = TableRange(t, position);
  std::ostringstream os;
  os << "\nsignal " << ShapeText(t) << " on rank " << engine.Rank() << ":";
  if (begin > 0) os << " ...";
  for (int64_t i = begin; i < end; ++i) {
    auto index = Unflatten(t, i);
    os << " " << IndexText(index) << "=" << ReadCell(engine, Address(t, index));
  }
  if (end < Count(t)) os << " ...";
  if (position >= 0) os << "; the wait is on " << IndexText(Unflatten(t, position));
  return os.str();
}

}  // namespace

extern "C" {

int32_t pypto_comm_rank(void) {
  Engine* engine = pypto::comm::Active();
  return engine ? engine->Rank() : -1;
}

int32_t pypto_comm_world_size(void) {
  Engine* engine = pypto::comm::Active();
  return engine ? engine->WorldSize() : -1;
}

int32_t pypto_comm_domain_rank(const void* window_address) {
  Engine* engine = pypto::comm::Active();
  auto where = engine ? engine->Locate(window_address) : std::nullopt;
  return where ? where->domain->rank : -1;
}

int32_t pypto_comm_domain_size(const void* window_address) {
  Engine* engine = pypto::comm::Active();
  auto where = engine ? engine->Locate(window_address) : std::nullopt;
  return where ? where->domain->size() : -1;
}

const char* pypto_comm_put(int32_t peer, void* window_dst, int64_t dst_row_stride_bytes, const void* src,
                           int64_t src_row_stride_bytes, int64_t rows, int64_t row_bytes, int32_t dtype,
                           int32_t atomic) {
  return Guard([&] {
    Engine& engine = Running("put");
    auto atomic_type = pypto::comm::AtomicTypeFromInt(atomic, "comm put: atomic");
    auto dst = engine.Resolve(window_dst, "put");
    engine.Put(dst.window, peer, dst.offset, dst_row_stride_bytes, src, src_row_stride_bytes, rows, row_bytes,
               DTypeOf(dtype, "put"), atomic_type);
  });
}

const char* pypto_comm_get(void* dst, int64_t dst_row_stride_bytes, int32_t peer, const void* window_src,
                           int64_t src_row_stride_bytes, int64_t rows, int64_t row_bytes) {
  return Guard([&] {
    Engine& engine = Running("get");
    auto src = engine.Resolve(window_src, "get");
    engine.Get(dst, dst_row_stride_bytes, src.window, peer, src.offset, src_row_stride_bytes, rows, row_bytes);
  });
}

const char* pypto_comm_notify(int32_t peer, int32_t* window_cell, int32_t value, int32_t op) {
  return Guard([&] {
    Engine& engine = Running("notify");
    auto notify_op = pypto::comm::NotifyOpFromInt(op, "comm notify: op");
    auto cell = engine.Resolve(window_cell, "notify");
    engine.Notify(cell.window, peer, cell.offset, value, notify_op);
  });
}

const char* pypto_comm_wait(const PyptoRtTensorDesc* signal, const int32_t* cell, int32_t expected, int32_t cmp) {
  return Guard([&] {
    Engine& engine = Running("wait");
    auto wait_cmp = pypto::comm::WaitCmpFromInt(cmp, "comm wait: cmp");
    auto where = engine.Resolve(cell, "wait");
    try {
      engine.Wait(where.window, where.offset, expected, wait_cmp);
    } catch (const pypto::comm::WaitTimeoutError& e) {
      throw pypto::Error(pypto::ErrorKind::kRuntime, e.message() + SignalTable(engine, signal, cell));
    }
  });
}

const char* pypto_comm_defer_wait(const PyptoRtTensorDesc* signal, const int32_t* cell, int32_t expected,
                                  const char* source_file, int32_t source_line) {
  return Guard([&] {
    Engine& engine = Running("defer_wait");
    if (expected < 0) {
      pypto::ThrowValueError("comm defer_wait on rank " + std::to_string(engine.Rank()) + ": expected is " +
                             std::to_string(expected) + ", but deferred conditions compare values in [0, INT32_MAX]; "
                             "count up from 0");
    }
    auto where = engine.Resolve(cell, "defer_wait");
    // The wait's deadline runs from now, as a blocking wait's would; the table reads the signal
    // then, through a copy of its descriptor.
    const auto started = pypto::comm::Clock::now();
    const auto deadline = started + std::chrono::duration_cast<pypto::comm::Clock::duration>(
                                        std::chrono::duration<double>(engine.WaitTimeout()));
    std::optional<PyptoRtTensorDesc> table;
    if (signal != nullptr) table = *signal;
    Engine* polled = &engine;
    auto holds = [polled, where, expected, started, deadline, table, cell] {
      try {
        return polled->PollWait(where.window, where.offset, expected, pypto::comm::WaitCmp::kGe, started, deadline);
      } catch (const pypto::comm::WaitTimeoutError& e) {
        throw pypto::Error(pypto::ErrorKind::kRuntime, "its deferred wait (pld.system.defer_wait) never held: " +
                                                           e.message() +
                                                           SignalTable(*polled, table ? &*table : nullptr, cell));
      }
    };
    pypto::runtime::DeferCurrentTask({holds, "TDEFER_WAIT", source_file ? source_file : "", source_line});
  });
}

}  // extern "C"
