// The plugin's entry: registers the "mpi" communication engine.
#include "mpi_engine.h"
#include "pypto/plugin/abi.h"

namespace {

void Register(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddCommEngine("mpi", "MPI-3 RMA over the MPI library the plugin was built with (Open MPI)",
                          [] { return std::make_unique<pypto::comm_mpi::MpiEngine>(); });
}

}  // namespace

PYPTO_PLUGIN("comm_mpi", "0.1.0", Register)
