// The replay harness of python -m pypto.tools.pto_isa_conformance: runs a
// generated kernel on launches the simulator recorded
// (PYPTO_RECORD_LAUNCHES, core/include/pypto/backend/launch_recorder.h).
//
//   harness OUT_DIR RECORD...
//
// For the k-th record it rebuilds the kernel's arguments (each tensor's bytes
// as they were before the launch, in buffers that keep the tensors' relative
// places where they overlapped, and with the alignment of the simulator's
// addresses), sets the block's context, calls kernel_entry(args), and writes
// OUT_DIR/<k>.out: every tensor slot's bytes after the launch, in slot order.
// On stdout, one line per record: "BEGIN k" before the kernel runs (a crash
// names the record) and "END k" after it, with "NOTE k ..." lines between for
// what the kernel reported (a window fault; in self mode the simulated core's
// fault).
//
// The kernel is compiled in a translation unit of its own and linked with
// this one, which needs only pypto/runtime/c_api.h. Built with
// -DPYPTO_REPLAY_SELF (and PyPTO's sdk/include) it also provides the
// simulated core that PyPTO's own <pto/pto-inst.hpp> runs on.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <algorithm>
#include <string>
#include <vector>

#include "pypto/runtime/c_api.h"

#ifdef PYPTO_REPLAY_SELF
#include "pypto/isa/sim_core.h"
PYPTO_ISA_DEFINE_CURRENT_CORE()
#endif

extern "C" void kernel_entry(int64_t* args);

namespace {

PyptoRtCoreContext g_context;
int g_record = 0;

struct Reader {
  const std::vector<unsigned char>& data;
  size_t at = 0;

  void Need(size_t n) {
    if (at + n > data.size()) {
      std::fprintf(stderr, "replay: the record ends early (%zu bytes wanted at %zu of %zu)\n", n, at, data.size());
      std::exit(3);
    }
  }
  template <typename T>
  T Get() {
    Need(sizeof(T));
    T value;
    std::memcpy(&value, data.data() + at, sizeof(T));
    at += sizeof(T);
    return value;
  }
  std::string Str() {
    uint32_t n = Get<uint32_t>();
    Need(n);
    std::string s(reinterpret_cast<const char*>(data.data() + at), n);
    at += n;
    return s;
  }
  const unsigned char* Bytes(size_t n) {
    Need(n);
    const unsigned char* p = data.data() + at;
    at += n;
    return p;
  }
};

struct TensorSlot {
  size_t slot = 0;
  PyptoRtTensorDesc desc{};
  uint64_t data = 0, lo = 0, bytes = 0;
  const unsigned char* before = nullptr;
  size_t region = 0;
};

// One buffer per set of overlapping tensors, at the simulator's address modulo this.
constexpr uint64_t kAlign = 4096;

struct Region {
  uint64_t lo = 0, hi = 0;
  unsigned char* raw = nullptr;
  unsigned char* base = nullptr;  // the byte that stands for address lo
};

std::vector<unsigned char> ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path);
    std::exit(3);
  }
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

#ifdef PYPTO_REPLAY_SELF
// Larger than any platform's buffers: the kernel ran on the simulator within its capacities already.
constexpr uint64_t kSelfCapacity = 4u << 20;

pto::SimCore& SelfCore() {
  static pto::SimCore* core = [] {
    auto* c = new pto::SimCore();
    for (int i = 0; i < pto::kNumTileTypes; ++i) {
      c->buffer[i] = static_cast<unsigned char*>(std::aligned_alloc(4096, kSelfCapacity));
      std::memset(c->buffer[i], 0, kSelfCapacity);
      c->capacity[i] = kSelfCapacity;
    }
    return c;
  }();
  return *core;
}
#endif

int Replay(const char* out_dir, const char* path) {
  const std::vector<unsigned char> data = ReadFile(path);
  Reader r{data};
  const unsigned char* magic = r.Bytes(8);
  if (std::memcmp(magic, "PPTOREC1", 8) != 0) {
    std::fprintf(stderr, "replay: %s is not a launch record\n", path);
    return 3;
  }
  r.Str();  // kernel hash
  r.Str();  // function
  r.Str();  // not replayable
  r.Str();  // label
  g_context = PyptoRtCoreContext{};
  g_context.block_idx = r.Get<int32_t>();
  g_context.block_num = r.Get<int32_t>();
  g_context.subblock_idx = r.Get<int32_t>();
  g_context.core_type = r.Get<int32_t>();
  const uint32_t count = r.Get<uint32_t>();
  std::vector<int64_t> slots(count, 0);
  std::vector<TensorSlot> tensors;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t kind = r.Get<uint32_t>();
    if (kind == 0) {
      slots[i] = r.Get<int64_t>();
      continue;
    }
    TensorSlot t;
    t.slot = i;
    r.Get<int32_t>();  // direction
    t.desc.dtype = r.Get<int32_t>();
    t.desc.ndim = r.Get<int32_t>();
    for (int d = 0; d < PYPTO_RT_MAX_DIMS; ++d) t.desc.shape[d] = r.Get<int64_t>();
    for (int d = 0; d < PYPTO_RT_MAX_DIMS; ++d) t.desc.strides[d] = r.Get<int64_t>();
    t.data = r.Get<uint64_t>();
    t.lo = r.Get<uint64_t>();
    t.bytes = r.Get<uint64_t>();
    t.before = r.Bytes(t.bytes);
    r.Bytes(t.bytes);  // after: the tool compares
    tensors.push_back(t);
  }

  // Overlapping tensors share a buffer, as they shared memory on the simulator.
  std::vector<size_t> order(tensors.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tensors[a].lo < tensors[b].lo; });
  std::vector<Region> regions;
  for (size_t i : order) {
    TensorSlot& t = tensors[i];
    const uint64_t hi = t.lo + std::max<uint64_t>(t.bytes, 1);
    if (regions.empty() || t.lo >= regions.back().hi) {
      regions.push_back({t.lo, hi});
    } else {
      regions.back().hi = std::max(regions.back().hi, hi);
    }
    t.region = regions.size() - 1;
  }
  for (Region& region : regions) {
    const uint64_t size = region.hi - region.lo;
    const uint64_t padded = (size + 2 * kAlign + kAlign - 1) / kAlign * kAlign;
    region.raw = static_cast<unsigned char*>(std::aligned_alloc(kAlign, padded));
    std::memset(region.raw, 0, padded);
    region.base = region.raw + region.lo % kAlign;
  }
  for (TensorSlot& t : tensors) {
    Region& region = regions[t.region];
    unsigned char* at = region.base + (t.lo - region.lo);
    if (t.bytes != 0) std::memcpy(at, t.before, t.bytes);
    t.desc.data = at + (t.data - t.lo);
  }
  for (TensorSlot& t : tensors) slots[t.slot] = reinterpret_cast<int64_t>(&t.desc);

#ifdef PYPTO_REPLAY_SELF
  pto::SimCore& core = SelfCore();
  core.Clear();
  pto::SetCurrentCore(&core);
#endif
  std::printf("BEGIN %d\n", g_record);
  std::fflush(stdout);
  kernel_entry(slots.data());
#ifdef PYPTO_REPLAY_SELF
  if (core.faulted()) {
    std::printf("NOTE %d the simulated core faulted: %s in %s at line %u (value %lld, limit %lld) %s\n", g_record,
                pto::FaultKindName(core.fault.kind), core.fault.instruction ? core.fault.instruction : "?",
                core.fault.line, static_cast<long long>(core.fault.value), static_cast<long long>(core.fault.limit),
                core.fault.detail);
  }
  pto::SetCurrentCore(nullptr);
#endif

  const std::string out_path = std::string(out_dir) + "/" + std::to_string(g_record) + ".out";
  std::ofstream out(out_path, std::ios::binary);
  for (const TensorSlot& t : tensors) {
    const Region& region = regions[t.region];
    out.write(reinterpret_cast<const char*>(region.base + (t.lo - region.lo)), static_cast<std::streamsize>(t.bytes));
  }
  out.close();
  for (Region& region : regions) std::free(region.raw);
  std::printf("END %d\n", g_record);
  std::fflush(stdout);
  return out ? 0 : 3;
}

}  // namespace

extern "C" const PyptoRtCoreContext* pypto_kernel_context(void) { return &g_context; }

extern "C" void pypto_kernel_window_fault(const char* instruction, int64_t value, int64_t limit) {
  std::printf("NOTE %d window fault in %s: %lld past the dim's %lld elements\n", g_record,
              instruction ? instruction : "?", static_cast<long long>(value), static_cast<long long>(limit));
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR RECORD...\n", argv[0]);
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    g_record = i - 2;
    int status = Replay(argv[1], argv[i]);
    if (status != 0) return status;
  }
  return 0;
}
