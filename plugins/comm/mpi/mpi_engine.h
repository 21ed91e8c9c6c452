// comm::Engine on MPI-3 RMA: one MPI_Win_allocate per window on the
// communicator of its comm domain (MPI_Comm_create_group of the members, out of
// a duplicate of MPI_COMM_WORLD, so communicator ranks are domain ranks), all
// inside one MPI_Win_lock_all epoch (passive target), so any member reaches any
// other member's window at any time.
#pragma once

#include <mpi.h>

#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "pypto/comm/engine.h"

namespace pypto::comm_mpi {

class MpiEngine : public comm::Engine {
 public:
  MpiEngine();
  // Frees the windows and, when this engine initialized MPI, finalizes it (collective).
  ~MpiEngine() override;

  int Rank() const override { return rank_; }
  int WorldSize() const override { return world_; }
  std::string HostName() const override;
  std::string Name() const override { return "mpi"; }
  [[noreturn]] void Abort(int code, const std::string& message) override;

  // Thrown as a pypto::Error (kRuntime) naming `what` and MPI's reason, when `rc` is not MPI_SUCCESS.
  void Check(int rc, const std::string& what) const;

 protected:
  void DoCreateDomain(int32_t domain, const std::vector<int>& members) override;
  void* DoAllocWindow(int32_t id, int32_t domain, int64_t bytes) override;
  void DoFreeWindow(int32_t id) override;
  void DoPut(int32_t window, int peer, int64_t dst_offset, int64_t dst_row_stride, const void* src,
             int64_t src_row_stride, int64_t rows, int64_t row_bytes, ir::DataType dtype,
             comm::AtomicType atomic) override;
  void DoGet(void* dst, int64_t dst_row_stride, int32_t window, int peer, int64_t src_offset, int64_t src_row_stride,
             int64_t rows, int64_t row_bytes) override;
  void DoNotify(int32_t window, int peer, int64_t offset, int32_t value, comm::NotifyOp op) override;
  int32_t DoReadSignal(int32_t window, int64_t offset) override;
  void DoAcquire(int32_t window) override;
  void DoBarrier() override;
  void DoAllReduce(void* buf, int64_t count, ir::DataType dtype, comm::ReduceOp op) override;
  void DoBroadcast(void* buf, int64_t bytes, int root) override;
  void DoAllGather(int32_t domain, const void* send, void* recv, int64_t bytes_per_rank) override;

 private:
  struct MpiWindow {
    MPI_Win win = MPI_WIN_NULL;
    void* base = nullptr;  // 64-byte aligned, inside the MPI allocation
    int self = 0;          // this process's rank in the window's communicator (its domain rank)
    // Per domain rank: the displacement of its aligned base inside its MPI allocation
    // (MPI_Win_allocate promises no alignment, and the padding differs per rank).
    std::vector<MPI_Aint> pad;
  };

  // Holds the MPI lock when the library lacks MPI_THREAD_MULTIPLE; an unlocked lock otherwise.
  std::unique_lock<std::mutex> SerializeMpi();
  // The window's record: stable until the collective FreeWindow, which no other call overlaps.
  const MpiWindow& Win(int32_t id) const;
  void PutRows(const MpiWindow& w, int peer, MPI_Aint disp, int64_t dst_row_stride, const char* src,
               int64_t src_row_stride, int64_t rows, int64_t row_bytes);
  void AccumulateRows(const MpiWindow& w, int peer, MPI_Aint disp, int64_t dst_row_stride, const char* src,
                      int64_t src_row_stride, int64_t rows, int64_t row_bytes, ir::DataType dtype);
  // Makes this process's local stores into every window visible to RMA (the release half of notify).
  void SyncAllWindows();

  MPI_Comm comm_ = MPI_COMM_NULL;
  // Per comm domain: its communicator. Touched only by collectives (one thread at a time).
  std::map<int32_t, MPI_Comm> domains_;
  int rank_ = 0;
  int world_ = 1;
  bool owns_mpi_ = false;   // this engine called MPI_Init_thread, so it finalizes
  bool serialize_ = false;  // the provided thread level is below MPI_THREAD_MULTIPLE
  std::mutex mpi_mutex_;
  mutable std::shared_mutex windows_mutex_;
  std::map<int32_t, MpiWindow> windows_;
};

}  // namespace pypto::comm_mpi
