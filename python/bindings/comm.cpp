// The communication engine seen from Python (the pld host side): start and
// stop the engine, windows as (id, address) pairs, the transport's own
// collectives on raw addresses (tensors' data pointers), our credit-barrier
// collectives on window tensors (comm_window_*: what pld.tensor.* host
// builtins run), and the alarm a timed-out wait raised.
// Blocking calls release the GIL, so other Python threads (and kernels that
// call back into Python) keep running while a rank waits for its peers.
#include "casters.h"
#include "pypto/comm/collectives.h"
#include "pypto/comm/registry.h"
#include "tensor_import.h"

namespace pypto::python {

namespace {

comm::Engine& Running(const char* fn) {
  comm::Engine* engine = comm::Active();
  if (engine == nullptr) {
    throw Error(ErrorKind::kRuntime, std::string(fn) + ": no communication engine runs in this process; call "
                                                       "comm_start() first (under mpirun for several ranks)");
  }
  return *engine;
}

void* Pointer(uintptr_t address) { return reinterpret_cast<void*>(address); }

ir::DataType DTypeOf(int code) {
  auto dtype = ir::DataType::FromCode(code);
  if (!dtype) ThrowValueError("comm_allreduce: unknown dtype code " + std::to_string(code));
  return *dtype;
}

// A window tensor argument (torch.Tensor, pypto runtime.Tensor, or anything with __dlpack__ or the buffer
// protocol) as the descriptor the collectives read. The caller's Python object keeps the memory alive for the
// call; the collectives check contiguity, dtype and that the memory lies in a window.
struct Described {
  explicit Described(py::handle obj) : tensor(TensorFromPythonBorrowed(obj, &borrowed)), desc(tensor.Describe()) {}
  bool borrowed = false;
  runtime::Tensor tensor;
  PyptoRtTensorDesc desc;
};

// Runs `body` with the GIL released; the descriptors' tensors are dropped after it is taken again.
template <typename F>
void Blocking(F&& body) {
  py::gil_scoped_release release;
  body();
}

}  // namespace

void BindComm(py::module_& m) {
  m.def("comm_start", [](const std::string& name) {
    py::gil_scoped_release release;
    comm::Start(name);
  }, py::arg("name") = "mpi",
        "Starts communication engine `name` in this process (idempotent); loads its plugin.");
  m.def("comm_running", [] { return comm::Active() != nullptr; });
  m.def("comm_rank", [] { return Running("comm_rank").Rank(); });
  m.def("comm_world_size", [] { return Running("comm_world_size").WorldSize(); });
  m.def("comm_host_name", [] { return Running("comm_host_name").HostName(); });
  m.def("comm_alloc_window", [](int64_t nbytes, const std::vector<int>& members) {
    auto& engine = Running("comm_alloc_window");
    py::gil_scoped_release release;
    comm::Window window = engine.AllocWindow(nbytes, members);
    return std::make_tuple(window.id, reinterpret_cast<uintptr_t>(window.base));
  }, py::arg("nbytes"), py::arg("members") = std::vector<int>{},
        "Collective over `members` (world ranks, ascending; empty: the world), which only they call: a zeroed "
        "symmetric window of nbytes in their comm domain; returns (id, address).");
  m.def("comm_window_domain", [](int32_t id) {
    comm::Window window = Running("comm_window_domain").Lookup(id, "comm_window_domain");
    return std::make_tuple(py::tuple(py::cast(window.domain->members)), window.domain->rank);
  }, py::arg("id"), "The comm domain of window `id`: (members as world ranks, this rank's domain rank).");
  m.def("comm_free_window", [](int32_t id) {
    auto& engine = Running("comm_free_window");
    py::gil_scoped_release release;
    engine.FreeWindow(id);
  }, py::arg("id"), "Collective: frees a window.");
  m.def("comm_barrier", [] {
    auto& engine = Running("comm_barrier");
    py::gil_scoped_release release;
    engine.Barrier();
  });
  m.def("comm_allreduce", [](uintptr_t address, int64_t count, int dtype_code, int op) {
    auto& engine = Running("comm_allreduce");
    auto reduce = comm::ReduceOpFromInt(op, "comm_allreduce: op");
    auto dtype = DTypeOf(dtype_code);
    py::gil_scoped_release release;
    engine.AllReduce(Pointer(address), count, dtype, reduce);
  }, py::arg("address"), py::arg("count"), py::arg("dtype_code"), py::arg("op"),
        "In place over `count` elements at `address`; op 0 Sum, 1 Max, 2 Min, 3 Prod.");
  m.def("comm_broadcast", [](uintptr_t address, int64_t nbytes, int root) {
    auto& engine = Running("comm_broadcast");
    py::gil_scoped_release release;
    engine.Broadcast(Pointer(address), nbytes, root);
  }, py::arg("address"), py::arg("nbytes"), py::arg("root"));
  m.def("comm_allgather", [](uintptr_t send_address, uintptr_t recv_address, int64_t bytes_per_rank) {
    auto& engine = Running("comm_allgather");
    py::gil_scoped_release release;
    engine.AllGather(Pointer(send_address), Pointer(recv_address), bytes_per_rank);
  }, py::arg("send_address"), py::arg("recv_address"), py::arg("bytes_per_rank"));
  // The pld.tensor.* collectives (c_api_collectives.cpp) on window tensors: every rank of the windows' comm domain
  // calls the same one with the same shapes (NR = the domain's size); the INT32 signal window is all zero before
  // and after.
  m.def("comm_window_allreduce", [](py::handle data, py::handle signal, int op, bool ring) {
    auto& engine = Running("comm_window_allreduce");
    auto reduce = comm::ReduceOpFromInt(op, "comm_window_allreduce: op");
    Described d(data), s(signal);
    Blocking([&] { comm::collectives::AllReduce(engine, &d.desc, &s.desc, reduce, ring); });
  }, py::arg("data"), py::arg("signal"), py::arg("op") = 0, py::arg("ring") = false,
        "In place on the window `data`; op 0 Sum, 1 Max, 2 Min, 3 Prod. Mesh: signal [NR, 1]; ring (reduce-scatter "
        "then allgather): signal [2*(NR-1), NR].");
  m.def("comm_window_barrier", [](py::handle signal) {
    auto& engine = Running("comm_window_barrier");
    Described s(signal);
    Blocking([&] { comm::collectives::Barrier(engine, &s.desc); });
  }, py::arg("signal"), "One credit barrier on the [NR, 1] signal window.");
  m.def("comm_window_broadcast", [](py::handle data, py::handle signal, int root) {
    auto& engine = Running("comm_window_broadcast");
    Described d(data), s(signal);
    Blocking([&] { comm::collectives::Broadcast(engine, &d.desc, &s.desc, root); });
  }, py::arg("data"), py::arg("signal"), py::arg("root"), "Every rank's window `data` gets rank root's.");
  m.def("comm_window_allgather", [](py::handle mine, py::handle out, py::handle signal) {
    auto& engine = Running("comm_window_allgather");
    Described m_(mine), o(out), s(signal);
    Blocking([&] { comm::collectives::AllGather(engine, &m_.desc, &o.desc, &s.desc); });
  }, py::arg("mine"), py::arg("out"), py::arg("signal"), "Row r of every rank's window `out` [NR, SIZE] is rank r's "
                                                               "`mine` [1, SIZE].");
  m.def("comm_window_reduce_scatter", [](py::handle data, py::handle signal, int op) {
    auto& engine = Running("comm_window_reduce_scatter");
    auto reduce = comm::ReduceOpFromInt(op, "comm_window_reduce_scatter: op");
    Described d(data), s(signal);
    Blocking([&] { comm::collectives::ReduceScatter(engine, &d.desc, &s.desc, reduce); });
  }, py::arg("data"), py::arg("signal"), py::arg("op") = 0,
        "`data` [NR, SIZE]: afterwards row `me` holds the sum over ranks of their row `me` (op Sum only).");
  m.def("comm_window_all_to_all", [](py::handle stage, py::handle out, py::handle signal) {
    auto& engine = Running("comm_window_all_to_all");
    Described st(stage), o(out), s(signal);
    Blocking([&] { comm::collectives::AllToAll(engine, &st.desc, &o.desc, &s.desc); });
  }, py::arg("stage"), py::arg("out"), py::arg("signal"),
        "stage[d] of rank s goes to row s of rank d's window `out`.");
  m.def("comm_window_all_to_all_v", [](py::handle input, py::handle target, py::handle signal,
                                       py::handle send_counts, py::handle recv_counts) {
    auto& engine = Running("comm_window_all_to_all_v");
    Described in(input), t(target), s(signal), sc(send_counts), rc(recv_counts);
    Blocking([&] { comm::collectives::AllToAllV(engine, &in.desc, &t.desc, &s.desc, &sc.desc, &rc.desc); });
  }, py::arg("input"), py::arg("target"), py::arg("signal"), py::arg("send_counts"), py::arg("recv_counts"),
        "input and the window target are [NR*MAX_RECV, SIZE]: block d of rank s's input goes whole to block s of "
        "rank d's target, and min(send_counts[d], MAX_RECV) to rank d's recv_counts[s] (INT32 window [NR, 1]).");
  m.def("comm_read_signal", [](int32_t window_id, int64_t offset) {
    return Running("comm_read_signal").ReadSignal(window_id, offset);
  }, py::arg("window_id"), py::arg("offset"), "An atomic read of this rank's INT32 cell at a byte offset.");
  m.def("comm_set_wait_timeout", [](double seconds) { Running("comm_set_wait_timeout").SetWaitTimeout(seconds); },
        py::arg("seconds"));
  m.def("comm_alarm_raised_by", [] { return Running("comm_alarm_raised_by").AlarmRaisedBy(); },
        "The rank whose wait timed out first, or None.");
  m.def("comm_clear_alarm", [] {
    auto& engine = Running("comm_clear_alarm");
    py::gil_scoped_release release;
    engine.ClearAlarm();
  }, "Collective: forgets a raised alarm on every rank.");
  m.def("comm_abort", [](int code, const std::string& message) {
    auto& engine = Running("comm_abort");
    py::gil_scoped_release release;
    engine.Abort(code, message);
  }, py::arg("code"), py::arg("message"), "Prints the message and ends every rank of the job.");
  m.def("comm_finalize", [] {
    py::gil_scoped_release release;
    comm::Finalize();
  }, "Collective: shuts the engine down (also done at normal exit).");
}

}  // namespace pypto::python
