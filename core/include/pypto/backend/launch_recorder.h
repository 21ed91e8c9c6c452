// Launch recording: with PYPTO_RECORD_LAUNCHES=DIR in the environment (read
// once, when the library loads), every kernel launch of the simulator (one
// per core of a block) is written to DIR, so that a replay harness can run
// the same kernel on the same inputs elsewhere (against the real PTO-ISA
// headers, python -m pypto.tools.pto_isa_conformance) and compare what it
// writes, byte for byte, with what the simulator wrote.
//
//   DIR/kernels/<hash>.cpp    each distinct kernel source, once (the text the
//                             backend generated, without the simulator's adapter)
//   DIR/kernels/<hash>.json   its function, output path, user file, platform,
//                             extra include folders, and what it uses (pipes, comm)
//   DIR/launches/<pid>-<n>.rec  one launch (format below)
//
// While recording, the blocks of every task run one at a time (a process-wide
// mutex around each block), so that a tensor's bytes after a block are what
// that block wrote. Blocks that cannot run alone run unserialized and their
// records say why they are not replayable: kernels using comm ops (they may
// wait for other kernels), sync_start grids (their blocks start together).
// Blocks of a cluster task (an AIC and AIV kernels talking through the
// cross-core pipe, or two AIV lanes) are recorded per member but marked too:
// the members run together, so one member's "after" holds the others' writes.
// Off (the default), a block pays one predictable branch.
//
// A record (native byte order, little-endian on every supported host):
//   "PPTOREC1"                        8 bytes
//   str kernel_hash, str function, str not_replayable (empty: replayable),
//   str label (PYTEST_CURRENT_TEST, else PYPTO_RECORD_LABEL, else "")
//   i32 block_idx, block_num, subblock_idx, core_type
//   u32 slots, then per slot u32 kind:
//     0 scalar: i64 value (the slot's bits)
//     1 tensor: i32 direction (runtime::ArgDirection), i32 dtype, i32 ndim,
//               i64 shape[8], i64 strides[8] (elements), u64 data address,
//               u64 lo (first byte any element can occupy), u64 bytes,
//               then the `bytes` bytes at lo before the block and after it
//   where str is a u32 length and that many bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pypto/backend/backend.h"
#include "pypto/runtime/runtime.h"

namespace pypto::jit {
class JitSession;
}

namespace pypto::backend {

struct BuildOptions;

namespace launch_recorder_detail {
// PYPTO_RECORD_LAUNCHES was set (a folder) when the library loaded.
extern bool recording;
}  // namespace launch_recorder_detail

inline bool RecordingLaunches() { return launch_recorder_detail::recording; }

// The toolchain's build linked `session`: while recording, remembers each
// kernel artifact's entry (pypto_kernel_<f>) and writes its source to the
// record folder. Nothing when not recording.
void RecordKernelSources(jit::JitSession& session, const std::vector<Artifact>& artifacts,
                         const BuildOptions& options);

// Around one block of a task in the runtime (RunBlock): from after the
// members' contexts are set up until after every member has returned. Off,
// it is a test of one flag.
class BlockRecording {
 public:
  // `contexts[i]` is member i's context (its core type and AIV lane say which
  // kernel of `kernels` it runs); `slots` the task's kernel arguments built
  // from `args` (Scalar args hold their value, the others a tensor descriptor).
  BlockRecording(const runtime::KernelSet& kernels, const std::vector<runtime::TaskArgs::Arg>& args,
                 const int64_t* slots, const PyptoRtCoreContext* contexts, size_t count, bool sync_start) {
    if (RecordingLaunches()) [[unlikely]] {
      Begin(kernels, args, slots, contexts, count, sync_start);
    }
  }
  ~BlockRecording() {
    if (state_ != nullptr) [[unlikely]] {
      End();
    }
  }
  BlockRecording(const BlockRecording&) = delete;
  BlockRecording& operator=(const BlockRecording&) = delete;

  struct State;

 private:
  void Begin(const runtime::KernelSet& kernels, const std::vector<runtime::TaskArgs::Arg>& args,
             const int64_t* slots, const PyptoRtCoreContext* contexts, size_t count, bool sync_start);
  void End();

  State* state_ = nullptr;  // owned; set only while recording
};

}  // namespace pypto::backend
