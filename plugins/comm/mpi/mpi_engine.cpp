#include "mpi_engine.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>

#include "half_accumulate.h"

namespace pypto::comm_mpi {
namespace {

constexpr int64_t kAlignment = 64;
// The largest count one MPI call takes is INT_MAX; larger transfers go in pieces of this many units.
constexpr int64_t kChunk = int64_t{1} << 30;

// Boost.DLL loads this plugin, and with it libmpi, RTLD_LOCAL. Open MPI builds
// whose MCA components do not link libmpi themselves (Debian's do) resolve
// libmpi's symbols from the global scope when MPI_Init dlopens them, so the
// library that defines MPI_Init is promoted to RTLD_GLOBAL first, as mpi4py does.
void PromoteMpiToGlobalScope() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&MPI_Init_thread), &info) == 0 || info.dli_fname == nullptr) return;
  // RTLD_NOLOAD: only changes the flags of the copy already loaded; the handle keeps it loaded for good.
  dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}

bool MpiInitialized() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  return initialized != 0;
}

bool MpiFinalized() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  return finalized != 0;
}

std::string MpiErrorText(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(text, length);
}

int64_t RoundUp(int64_t bytes, int64_t to) { return (bytes + to - 1) / to * to; }

// The MPI type of an element dtype for accumulate and reductions; MPI_DATATYPE_NULL when MPI has none.
MPI_Datatype MpiType(ir::DataType dtype) {
  using ir::DataType;
  if (dtype == DataType::FP32) return MPI_FLOAT;
  if (dtype == DataType::FP64) return MPI_DOUBLE;
  if (dtype == DataType::INT8) return MPI_INT8_T;
  if (dtype == DataType::INT16) return MPI_INT16_T;
  if (dtype == DataType::INT32) return MPI_INT32_T;
  if (dtype == DataType::INT64 || dtype == DataType::INDEX) return MPI_INT64_T;
  if (dtype == DataType::UINT8 || dtype == DataType::BOOL) return MPI_UINT8_T;
  if (dtype == DataType::UINT16) return MPI_UINT16_T;
  if (dtype == DataType::UINT32) return MPI_UINT32_T;
  if (dtype == DataType::UINT64) return MPI_UINT64_T;
  return MPI_DATATYPE_NULL;
}

MPI_Op MpiOp(comm::ReduceOp op) {
  switch (op) {
    case comm::ReduceOp::kSum: return MPI_SUM;
    case comm::ReduceOp::kMax: return MPI_MAX;
    case comm::ReduceOp::kMin: return MPI_MIN;
    case comm::ReduceOp::kProd: return MPI_PROD;
  }
  return MPI_OP_NULL;
}

}  // namespace

MpiEngine::MpiEngine() {
  if (MpiFinalized()) {
    throw Error(ErrorKind::kRuntime,
                "comm engine 'mpi': MPI was already finalized in this process, and MPI cannot start twice in one "
                "process; start the engine once per process and finalize it only at the end");
  }
  int provided = MPI_THREAD_SINGLE;
  if (MpiInitialized()) {
    MPI_Query_thread(&provided);
  } else {
    PromoteMpiToGlobalScope();
    Check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
    owns_mpi_ = true;
  }
  // Simulated cores call in from several threads; below MPI_THREAD_MULTIPLE one lock serializes MPI.
  serialize_ = provided < MPI_THREAD_MULTIPLE;
  // A private communicator keeps the engine's collectives apart from any other MPI user's.
  Check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup(MPI_COMM_WORLD)");
  Check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  Check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  Check(MPI_Comm_size(comm_, &world_), "MPI_Comm_size");
}

MpiEngine::~MpiEngine() {
  // Collective, like the frees and MPI_Finalize: every rank shuts down together. Errors cannot be reported here.
  for (auto& [id, w] : windows_) {
    MPI_Win_unlock_all(w.win);
    MPI_Win_free(&w.win);
  }
  for (auto& [id, comm] : domains_) MPI_Comm_free(&comm);
  MPI_Comm_free(&comm_);
  if (owns_mpi_ && !MpiFinalized()) MPI_Finalize();
}

void MpiEngine::Check(int rc, const std::string& what) const {
  if (rc == MPI_SUCCESS) return;
  throw Error(ErrorKind::kRuntime, "comm engine 'mpi': " + what + " failed on rank " + std::to_string(rank_) +
                                       " of " + std::to_string(world_) + ": " + MpiErrorText(rc) +
                                       " (was the job started by mpirun with every rank running this program?)");
}

std::string MpiEngine::HostName() const {
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  Check(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
  return std::string(name, length);
}

void MpiEngine::Abort(int code, const std::string& message) {
  std::fprintf(stderr, "pypto: rank %d of %d aborts the job (code %d): %s\n", rank_, world_, code, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return; this keeps [[noreturn]] honest if an MPI library's does
}

std::unique_lock<std::mutex> MpiEngine::SerializeMpi() {
  if (serialize_) return std::unique_lock<std::mutex>(mpi_mutex_);
  return std::unique_lock<std::mutex>(mpi_mutex_, std::defer_lock);
}

const MpiEngine::MpiWindow& MpiEngine::Win(int32_t id) const {
  std::shared_lock<std::shared_mutex> lock(windows_mutex_);
  return windows_.at(id);
}

void MpiEngine::DoCreateDomain(int32_t domain, const std::vector<int>& members) {
  auto mpi = SerializeMpi();
  // MPI_Comm_create_group is collective over the group only, so the ranks outside it go on with other work.
  MPI_Group world_group = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
  Check(MPI_Comm_group(comm_, &world_group), "MPI_Comm_group");
  Check(MPI_Group_incl(world_group, static_cast<int>(members.size()), members.data(), &group), "MPI_Group_incl");
  MPI_Comm comm = MPI_COMM_NULL;
  int rc = MPI_Comm_create_group(comm_, group, /*tag=*/0, &comm);
  MPI_Group_free(&group);
  MPI_Group_free(&world_group);
  Check(rc, "MPI_Comm_create_group of comm domain " + std::to_string(domain) + " (" +
                std::to_string(members.size()) + " ranks)");
  Check(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  domains_[domain] = comm;
}

void* MpiEngine::DoAllocWindow(int32_t id, int32_t domain, int64_t bytes) {
  MPI_Comm comm = domains_.at(domain);
  auto mpi = SerializeMpi();
  // Rounded up so that word-sized atomics at the end stay inside, plus room to align the base.
  MPI_Aint size = RoundUp(bytes, kAlignment) + kAlignment;
  void* raw = nullptr;
  MpiWindow w;
  int members = 0;
  Check(MPI_Comm_rank(comm, &w.self), "MPI_Comm_rank");
  Check(MPI_Comm_size(comm, &members), "MPI_Comm_size");
  Check(MPI_Win_allocate(size, 1, MPI_INFO_NULL, comm, &raw, &w.win),
        "MPI_Win_allocate of window " + std::to_string(id) + " (" + std::to_string(bytes) + " bytes)");
  Check(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  auto address = reinterpret_cast<uintptr_t>(raw);
  MPI_Aint my_pad = static_cast<MPI_Aint>(RoundUp(static_cast<int64_t>(address), kAlignment) - address);
  w.base = static_cast<char*>(raw) + my_pad;
  w.pad.resize(members);
  Check(MPI_Allgather(&my_pad, 1, MPI_AINT, w.pad.data(), 1, MPI_AINT, comm), "MPI_Allgather of window pads");
  Check(MPI_Win_lock_all(MPI_MODE_NOCHECK, w.win), "MPI_Win_lock_all");
  std::memset(raw, 0, size);
  // Every member has zeroed its part before any member may write into another's.
  Check(MPI_Win_sync(w.win), "MPI_Win_sync");
  Check(MPI_Barrier(comm), "MPI_Barrier after zeroing window " + std::to_string(id));
  void* base = w.base;
  std::unique_lock<std::shared_mutex> lock(windows_mutex_);
  windows_[id] = std::move(w);
  return base;
}

void MpiEngine::DoFreeWindow(int32_t id) {
  MpiWindow w;
  {
    std::unique_lock<std::shared_mutex> lock(windows_mutex_);
    w = windows_.at(id);
    windows_.erase(id);
  }
  auto mpi = SerializeMpi();
  Check(MPI_Win_unlock_all(w.win), "MPI_Win_unlock_all of window " + std::to_string(id));
  Check(MPI_Win_free(&w.win), "MPI_Win_free of window " + std::to_string(id));
}

void MpiEngine::PutRows(const MpiWindow& w, int peer, MPI_Aint disp, int64_t dst_row_stride, const char* src,
                        int64_t src_row_stride, int64_t rows, int64_t row_bytes) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t done = 0; done < row_bytes; done += kChunk) {
      int count = static_cast<int>(std::min(kChunk, row_bytes - done));
      Check(MPI_Put(src + r * src_row_stride + done, count, MPI_BYTE, peer, disp + r * dst_row_stride + done, count,
                    MPI_BYTE, w.win),
            "MPI_Put to peer " + std::to_string(peer));
    }
  }
}

void MpiEngine::AccumulateRows(const MpiWindow& w, int peer, MPI_Aint disp, int64_t dst_row_stride, const char* src,
                               int64_t src_row_stride, int64_t rows, int64_t row_bytes, ir::DataType dtype) {
  MPI_Datatype type = MpiType(dtype);
  const int64_t element = dtype.get_byte();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t done = 0; done < row_bytes; done += kChunk * element) {
      int count = static_cast<int>(std::min(kChunk, (row_bytes - done) / element));
      Check(MPI_Accumulate(src + r * src_row_stride + done, count, type, peer, disp + r * dst_row_stride + done,
                           count, type, MPI_SUM, w.win),
            std::string("MPI_Accumulate (") + dtype.name() + " Add) to peer " + std::to_string(peer));
    }
  }
}

void MpiEngine::DoPut(int32_t window, int peer, int64_t dst_offset, int64_t dst_row_stride, const void* src,
                      int64_t src_row_stride, int64_t rows, int64_t row_bytes, ir::DataType dtype,
                      comm::AtomicType atomic) {
  const MpiWindow& w = Win(window);
  const char* bytes = static_cast<const char*>(src);
  auto mpi = SerializeMpi();
  if (atomic == comm::AtomicType::kNone) {
    PutRows(w, peer, w.pad[peer] + dst_offset, dst_row_stride, bytes, src_row_stride, rows, row_bytes);
  } else if (dtype == ir::DataType::FP16 || dtype == ir::DataType::BF16) {
    auto check = [this, peer](int rc, const std::string& what) { Check(rc, what + " to peer " + std::to_string(peer)); };
    for (int64_t r = 0; r < rows; ++r) {
      AccumulateHalfRow(w.win, peer, w.pad[peer], dst_offset + r * dst_row_stride, bytes + r * src_row_stride,
                        row_bytes, dtype, check);
    }
  } else {
    AccumulateRows(w, peer, w.pad[peer] + dst_offset, dst_row_stride, bytes, src_row_stride, rows, row_bytes, dtype);
  }
  // Complete at the target before returning: a notify after this Put then releases the data.
  Check(MPI_Win_flush(peer, w.win), "MPI_Win_flush to peer " + std::to_string(peer));
}

void MpiEngine::DoGet(void* dst, int64_t dst_row_stride, int32_t window, int peer, int64_t src_offset,
                      int64_t src_row_stride, int64_t rows, int64_t row_bytes) {
  const MpiWindow& w = Win(window);
  char* out = static_cast<char*>(dst);
  const MPI_Aint disp = w.pad[peer] + src_offset;
  auto mpi = SerializeMpi();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t done = 0; done < row_bytes; done += kChunk) {
      int count = static_cast<int>(std::min(kChunk, row_bytes - done));
      Check(MPI_Get(out + r * dst_row_stride + done, count, MPI_BYTE, peer, disp + r * src_row_stride + done, count,
                    MPI_BYTE, w.win),
            "MPI_Get from peer " + std::to_string(peer));
    }
  }
  Check(MPI_Win_flush(peer, w.win), "MPI_Win_flush from peer " + std::to_string(peer));
}

void MpiEngine::SyncAllWindows() {
  std::shared_lock<std::shared_mutex> lock(windows_mutex_);
  for (const auto& [id, w] : windows_) Check(MPI_Win_sync(w.win), "MPI_Win_sync");
}

void MpiEngine::DoNotify(int32_t window, int peer, int64_t offset, int32_t value, comm::NotifyOp op) {
  const MpiWindow& w = Win(window);
  auto mpi = SerializeMpi();
  // Release: local stores into windows before the signal. Earlier Puts were flushed when they returned.
  SyncAllWindows();
  MPI_Op mpi_op = op == comm::NotifyOp::kSet ? MPI_REPLACE : MPI_SUM;
  Check(MPI_Accumulate(&value, 1, MPI_INT32_T, peer, w.pad[peer] + offset, 1, MPI_INT32_T, mpi_op, w.win),
        std::string("MPI_Accumulate (notify ") + comm::NotifyOpName(op) + ") to peer " + std::to_string(peer));
  Check(MPI_Win_flush(peer, w.win), "MPI_Win_flush to peer " + std::to_string(peer));
}

int32_t MpiEngine::DoReadSignal(int32_t window, int64_t offset) {
  const MpiWindow& w = Win(window);
  int32_t value = 0;
  auto mpi = SerializeMpi();
  // An atomic fetch, not a plain load: accumulates are atomic only against other RMA atomics.
  Check(MPI_Fetch_and_op(nullptr, &value, MPI_INT32_T, w.self, w.pad[w.self] + offset, MPI_NO_OP, w.win),
        "MPI_Fetch_and_op (read signal)");
  Check(MPI_Win_flush_local(w.self, w.win), "MPI_Win_flush_local");
  return value;
}

void MpiEngine::DoAcquire(int32_t window) {
  const MpiWindow& w = Win(window);
  auto mpi = SerializeMpi();
  Check(MPI_Win_sync(w.win), "MPI_Win_sync");
}

void MpiEngine::DoBarrier() {
  auto mpi = SerializeMpi();
  Check(MPI_Barrier(comm_), "MPI_Barrier");
}

void MpiEngine::DoAllReduce(void* buf, int64_t count, ir::DataType dtype, comm::ReduceOp op) {
  MPI_Datatype type = MpiType(dtype);
  if (type == MPI_DATATYPE_NULL) {
    ThrowValueError(std::string("comm allreduce: dtype ") + dtype.name() +
                    " is not supported by the mpi engine; it reduces FP32, FP64 and the integer types (cast "
                    "FP16/BF16 to FP32 first)");
  }
  auto mpi = SerializeMpi();
  char* bytes = static_cast<char*>(buf);
  for (int64_t done = 0; done < count; done += kChunk) {
    int n = static_cast<int>(std::min(kChunk, count - done));
    Check(MPI_Allreduce(MPI_IN_PLACE, bytes + done * dtype.get_byte(), n, type, MpiOp(op), comm_),
          std::string("MPI_Allreduce (") + comm::ReduceOpName(op) + ", " + dtype.name() + ")");
  }
}

void MpiEngine::DoBroadcast(void* buf, int64_t bytes, int root) {
  auto mpi = SerializeMpi();
  char* data = static_cast<char*>(buf);
  for (int64_t done = 0; done < bytes; done += kChunk) {
    int n = static_cast<int>(std::min(kChunk, bytes - done));
    Check(MPI_Bcast(data + done, n, MPI_BYTE, root, comm_), "MPI_Bcast from root " + std::to_string(root));
  }
}

void MpiEngine::DoAllGather(int32_t domain, const void* send, void* recv, int64_t bytes_per_rank) {
  if (bytes_per_rank > INT_MAX) {
    ThrowValueError("comm allgather: " + std::to_string(bytes_per_rank) +
                    " bytes per rank is more than one MPI call moves (2 GiB); gather in smaller pieces");
  }
  auto mpi = SerializeMpi();
  int n = static_cast<int>(bytes_per_rank);
  Check(MPI_Allgather(send, n, MPI_BYTE, recv, n, MPI_BYTE, domains_.at(domain)), "MPI_Allgather");
}

}  // namespace pypto::comm_mpi
