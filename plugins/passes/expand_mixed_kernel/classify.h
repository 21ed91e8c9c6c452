// Which core each statement of an InCore function runs on.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::passes::mixed {

// Where a leaf statement goes. Shared statements (scalar code, loop
// bookkeeping) run on both cores; a crossing is a tile.move between the
// cores' spaces, which becomes a push on one side and a pop on the other.
enum class Placement { kShared, kCube, kVector, kCubeToVector, kVectorToCube };

// The core a variable lives on: the one whose statement defines it.
enum class Home { kShared, kCube, kVector };

// One tile.move that crosses between the cores.
struct Crossing {
  const ir::Stmt* stmt = nullptr;
  ir::VarPtr source;             // the tile that leaves its core
  ir::VarPtr target;             // the tile as the other core has it
  Placement direction = Placement::kCubeToVector;
};

struct Classification {
  std::unordered_map<const ir::Stmt*, Placement> leaves;
  std::unordered_map<const ir::Var*, Home> homes;
  std::vector<Crossing> crossings;  // in program order
  const ir::Stmt* first_cube = nullptr;
  const ir::Stmt* first_vector = nullptr;
  // pl.split_aiv regions: the kernel was split by hand, in this mode.
  bool manual = false;
  ir::SplitMode manual_split = ir::SplitMode::None;

  bool has_cube() const { return first_cube != nullptr; }
  bool has_vector() const { return first_vector != nullptr; }
  bool mixed() const { return has_cube() && has_vector(); }
  Home HomeOf(const ir::Var* var) const;
};

bool IsCubeSpace(ir::MemorySpace space);
// Home of a value of this type: its tile's core, or shared.
Home HomeOfType(const ir::TypePtr& type);
const char* HomeName(Home home);  // "cube", "vector", "shared"

// Classifies every leaf statement of `function`'s body; a ValueError for a
// statement that cannot run on either core alone (an op mixing the cores'
// spaces other than a crossing, a hand-written pipe op, a kernel call). In a
// function with pl.split_aiv regions everything inside a region is vector
// code and no vector work may be outside one.
Classification Classify(const ir::Function& function);

}  // namespace pypto::passes::mixed
