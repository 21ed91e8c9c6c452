// A platform: one SoC (its on-chip memory capacities, alignment, core counts,
// dtypes and native casts) run either on the real device or simulated.
// Descriptions live in DataDir()/platforms/<soc>.yaml (a2a3.yaml, a5.yaml);
// the simulated platforms a2a3sim and a5sim read the same file. Passes take
// every capacity from here, never from constants in code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pypto/ir/dtype.h"
#include "pypto/ir/enums.h"

namespace pypto::backend {

struct MemorySpaceInfo {
  ir::MemorySpace space = ir::MemorySpace::Vec;
  int64_t capacity_bytes = 0;  // usable bytes (what allocation may use)
  int64_t alignment_bytes = 32;
};

struct Platform {
  std::string name;  // "a2a3sim"
  std::string soc;   // "a2a3": the description file it was read from
  std::string description;
  bool simulated = false;
  std::map<ir::MemorySpace, MemorySpaceInfo> memory;  // on-chip spaces only (DDR is unbounded)
  int clusters = 0;
  int aic_per_cluster = 1;
  int aiv_per_cluster = 2;
  std::vector<ir::DataType> dtypes;                           // element types the cores compute on
  std::vector<std::pair<ir::DataType, ir::DataType>> casts;  // casts one instruction performs (from, to)
  // Innermost bytes a load/store should move per row to use the transfer
  // engines well (512 on a2a3, 128 on a5).
  int64_t efficient_transfer_bytes = 512;
  // Row alignment of matmul results in Acc, and the accumulator dtypes that
  // need another one (INT32 on a2a3: 32).
  int64_t acc_m_alignment = 16;
  std::vector<std::pair<ir::DataType, int64_t>> acc_m_alignment_by_dtype;
  // Memory moves the hardware performs directly (from, to).
  std::vector<std::pair<ir::MemorySpace, ir::MemorySpace>> moves;
  // Tiles one core of a cluster hands to another (from, to): cube results to
  // the vector cores, vector tiles to the cube core. ExpandMixedKernel turns
  // each into a tpush/tpop pair (through GM where the platform needs it).
  std::vector<std::pair<ir::MemorySpace, ir::MemorySpace>> core_transfers;
  // Where a cross-core pipe's ring lives (`cross_core_ring:` gm | consumer):
  // in global memory (A2/A3), or in the consumer's own buffer, UB for tiles
  // to the vector cores and L1 for tiles to the cube core (A5), where it
  // competes with the kernel's tiles.
  bool pipe_ring_in_consumer = false;
  // Approximate performance figures for cost estimates, as the file gives
  // them: pipe ("MTE2", "V", "M", "clock") -> figure ("bytes_per_cycle") -> number.
  std::map<std::string, std::map<std::string, double>> throughput;

  bool HasSpace(ir::MemorySpace space) const { return memory.count(space) > 0; }
  // ValueError naming the platform when `space` is not on chip.
  const MemorySpaceInfo& Space(ir::MemorySpace space) const;
  int64_t Capacity(ir::MemorySpace space) const { return Space(space).capacity_bytes; }
  int64_t Alignment(ir::MemorySpace space) const { return Space(space).alignment_bytes; }
  bool SupportsDType(ir::DataType dtype) const;
  bool SupportsCast(ir::DataType from, ir::DataType to) const;
  bool SupportsMove(ir::MemorySpace from, ir::MemorySpace to) const;
  // The spaces a tile passes through on its way from `from` to `to`, both
  // ends included, by on-chip moves and core transfers: fewest core
  // transfers first, then fewest steps. nullopt when there is no such path.
  // DDR is never a step: leaving the chip takes a store and a load.
  std::optional<std::vector<ir::MemorySpace>> MovePath(ir::MemorySpace from, ir::MemorySpace to) const;
  // One throughput figure, or nullopt when the file does not give it.
  std::optional<double> Throughput(const std::string& pipe, const std::string& figure) const;
  // The Acc row alignment for results of `acc_dtype`.
  int64_t AccMAlignment(ir::DataType acc_dtype) const;
  int cores_per_cluster() const { return aic_per_cluster + aiv_per_cluster; }

  // The platform called `name` (a2a3, a2a3sim, a5, a5sim, or any
  // <soc>[sim] with a description file), loaded once and cached. An unknown
  // name is a ValueError listing the known ones; a malformed file names the
  // file and line.
  static const Platform& Get(const std::string& name);
  // Reads a description file directly (not cached): `name` ending in "sim"
  // makes the simulated variant. For tests and out-of-tree descriptions.
  static Platform LoadFile(const std::filesystem::path& path, const std::string& name);
  // Every platform name the description files provide, sorted.
  static std::vector<std::string> Names();
  // The platform used when none is given.
  static constexpr const char* kDefaultName = "a2a3sim";
};

}  // namespace pypto::backend
