// The cross-core pipe of a cluster (docs/mixed-kernels.md): the AIC and its
// AIV lanes hand tiles to each other through a ring of slots per direction.
// C2V: tile.tpush_to_aiv on the AIC, tile.tpop_from_aic and system.tfree_to_aic
// on each AIV lane; V2C the mirror image. Both ends bind the pipe first with
// system.aic_initialize_pipe / system.aiv_initialize_pipe. Every op is
// CrossCoreOp, so no pass drops one as dead: a pop whose tile goes unused
// still takes its slot.
#include <algorithm>

#include "pypto/ops/registry.h"
#include "pypto/ops/type_rules.h"

namespace pypto::ops {
namespace {

using namespace pypto::ir;

// The codes of the `split` kwarg, in pto::PipeSplit order.
const std::vector<std::string>& SplitNames() {
  static const std::vector<std::string> names = {"none", "up_down", "left_right"};
  return names;
}
constexpr int64_t kSplitUpDown = 1;
constexpr int64_t kSplitLeftRight = 2;

// dir_mask bits of the init ops (pto::DIR_C2V, pto::DIR_V2C).
constexpr int64_t kDirC2V = 1;
constexpr int64_t kDirV2C = 2;
// The hardware has 8 flags per direction and Vector-Cube pair; two active directions share them.
constexpr int64_t kSlotsOneDirection = 8;
constexpr int64_t kSlotsTwoDirections = 4;

std::string SpaceName(MemorySpace space) { return std::string("MemorySpace.") + ToString(space); }

std::string SpaceList(const std::vector<MemorySpace>& spaces) {
  std::string s;
  for (size_t k = 0; k < spaces.size(); ++k) s += (k == 0 ? "" : " or ") + SpaceName(spaces[k]);
  return s;
}

// Which core runs an op, and where its tiles live there.
struct Side {
  const char* core;                 // "the AIC" / "an AIV lane"
  std::vector<MemorySpace> spaces;  // the spaces its pushed or freed tiles may occupy
};
const Side kCube{"the AIC", {MemorySpace::Mat, MemorySpace::Acc}};
const Side kVector{"an AIV lane", {MemorySpace::Vec}};

OpDef& PipeOp(const std::string& name, std::string description) {
  return OpRegistry::Global()
      .Register(name)
      .set_category(OpCategory::kCrossCoreOp)
      .set_description(std::move(description))
      .set_placement(Placement::kInCoreOnly);
}

// A split halves the tile's box between the two lanes, so the box must be even along the split axis.
void RequireSplittable(const DeduceContext& ctx, int64_t split, const Shape& shape, const std::string& what) {
  if (split != kSplitUpDown && split != kSplitLeftRight) return;
  size_t axis = split == kSplitUpDown ? 0 : 1;
  auto extent = AsConstInt(shape[axis]);
  if (!extent || *extent % 2 == 0) return;
  const char* unit = axis == 0 ? "rows" : "columns";
  ctx.Error("split=" + std::to_string(split) + " (" + SplitNames()[split] + ") halves " + what + "'s " +
            std::to_string(*extent) + " " + unit + " between the two AIV lanes, which needs an even count; pad " +
            what + " to " + std::to_string(*extent + 1) + " " + unit + " and narrow its valid shape");
}

// The tile a push sends or a free gives back: 2-D, in a space of the core that runs the op.
ArrayInfo PipeTileArg(const DeduceContext& ctx, size_t i, const Side& side) {
  ArrayInfo tile = ArrayArg(ctx, i, ArrayKind::kTile);
  RequireRank(ctx, i, tile, 2);
  if (tile.memory_space &&
      std::find(side.spaces.begin(), side.spaces.end(), *tile.memory_space) == side.spaces.end()) {
    ctx.Error("argument '" + ctx.ArgName(i) + "' is in " + SpaceName(*tile.memory_space) + ", but " + side.core +
              " runs this op and its pipe tiles live in " + SpaceList(side.spaces) + "; tile.move it there first");
  }
  return tile;
}

void RegisterPushes() {
  struct Push {
    const char* name;
    const char* description;
    const Side* side;
    bool whole_tile;  // the AIC pushes the whole tile (a split cuts it); a lane pushes its half
  };
  for (const Push& push :
       {Push{"tile.tpush_to_aiv",
             "AIC: push a tile to the AIV lanes (C2V); under a split each lane receives its half", &kCube, true},
        Push{"tile.tpush_to_aic",
             "AIV lane: push this lane's tile to the AIC (V2C); under a split it is the lane's half of the AIC's pop",
             &kVector, false}}) {
    PipeOp(push.name, push.description)
        // The engine that moves the tile out of its space: the fixpipe from Acc, MTE1 from Mat, MTE3 from Vec.
        .set_pipe([](const ir::Call& call) -> std::optional<PipeType> {
          auto tile = As<TileType>(call.args.at(0)->type);
          std::optional<MemorySpace> space = tile ? tile->memory_space : std::nullopt;
          if (space == MemorySpace::Acc) return PipeType::kFIX;
          return space == MemorySpace::Mat ? PipeType::kMTE1 : PipeType::kMTE3;
        })
        .add_argument("tile", "the 2-D tile to send")
        .add_kwarg("split", AttrKind::kInt, int64_t{0}, "0 none, 1 up_down (rows), 2 left_right (columns)")
        .set_input_memory(0, push.side->spaces)
        .set_type_deduce([side = push.side, whole_tile = push.whole_tile](const DeduceContext& ctx) -> TypePtr {
          int64_t split = CodeKwarg(ctx, "split", SplitNames());
          ArrayInfo tile = PipeTileArg(ctx, 0, *side);
          if (whole_tile) RequireSplittable(ctx, split, tile.shape, "the pushed tile");
          return UnknownType::Make();
        });
  }
}

void RegisterPops() {
  struct Pop {
    const char* name;
    const char* description;
    MemorySpace space;
    bool whole_tile;  // the AIC's pop assembles the lanes' halves; a lane pops its half
  };
  for (const Pop& pop :
       {Pop{"tile.tpop_from_aic",
            "AIV lane: pop this lane's next tile from the AIC (C2V) into a new Vec tile; keeps its slot until "
            "system.tfree_to_aic",
            MemorySpace::Vec, false},
        Pop{"tile.tpop_from_aiv",
            "AIC: pop the next tile of every AIV lane (V2C) into a new Mat tile, each lane's in its part under the "
            "split; keeps the slots until system.tfree_to_aiv",
            MemorySpace::Mat, true}}) {
    PipeOp(pop.name, pop.description)
        .set_pipe(PipeType::kMTE2)
        .add_argument("shape", "static 2-D extents of the received tile (a lane's half under a C2V split)")
        .add_required_kwarg("dtype", AttrKind::kDataType, "element dtype, the pushed tile's")
        .add_kwarg("split", AttrKind::kInt, int64_t{0}, "0 none, 1 up_down (rows), 2 left_right (columns)")
        .set_output_memory(pop.space)
        .set_type_deduce([whole_tile = pop.whole_tile](const DeduceContext& ctx) -> TypePtr {
          int64_t split = CodeKwarg(ctx, "split", SplitNames());
          Shape shape = StaticShapeListArg(ctx, 0);
          RequireListLength(ctx, 0, shape.size(), 2);
          DataType dtype = *ctx.KwargAs<DataType>("dtype");
          if (dtype == DataType::TASK_ID) ctx.Error("dtype TASK_ID is not an element type");
          if (whole_tile) RequireSplittable(ctx, split, shape, "the popped tile");
          return MakeTileType(ctx, std::move(shape), dtype);
        });
  }
}

void RegisterFrees() {
  struct Free {
    const char* name;
    const char* description;
    const Side* side;
  };
  for (const Free& op :
       {Free{"system.tfree_to_aic",
             "AIV lane: give the oldest slot it popped back to the AIC; `tile` is that pop's tile, so the free "
             "stays after its last use",
             &kVector},
        Free{"system.tfree_to_aiv",
             "AIC: give the oldest slot popped from every AIV lane back; `tile` is that pop's tile, so the free "
             "stays after its last use",
             &kCube}}) {
    PipeOp(op.name, op.description)
        // The scalar unit signals the producer, which then overwrites the slot: for ordering, the free writes
        // the popped tile, so its readers must be done first.
        .set_pipe(PipeType::kS)
        .set_arg_effect(0, ArgEffect::kReadWrite)
        .add_argument("tile", "the tile of the pop whose slot is freed")
        .set_input_memory(0, op.side->spaces)
        .set_type_deduce([side = op.side](const DeduceContext& ctx) -> TypePtr {
          PipeTileArg(ctx, 0, *side);
          return UnknownType::Make();
        });
  }
}

void RegisterInits() {
  for (auto [name, description] :
       {std::pair{"system.aic_initialize_pipe", "AIC: bind its ends of the directions in dir_mask"},
        std::pair{"system.aiv_initialize_pipe", "AIV lane: bind its ends of the directions in dir_mask"}}) {
    PipeOp(name, std::string(description) + " (before its first transfer; both ends give the same numbers)")
        .set_no_pipe()
        .add_required_kwarg("dir_mask", AttrKind::kInt, "1 C2V, 2 V2C, 3 both")
        .add_required_kwarg("slot_size", AttrKind::kInt, "bytes of a slot: at least the largest tile that crosses")
        .add_kwarg("slot_num", AttrKind::kInt, int64_t{0},
                   "slots per lane and direction; 0 takes the hardware's depth (8 for one direction, 4 for two)")
        .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
          int64_t mask = *ctx.KwargAs<int64_t>("dir_mask");
          if (mask != kDirC2V && mask != kDirV2C && mask != (kDirC2V | kDirV2C)) {
            ctx.Error("keyword 'dir_mask' must be 1 (C2V), 2 (V2C) or 3 (both), got " + std::to_string(mask));
          }
          int64_t slot_size = *ctx.KwargAs<int64_t>("slot_size");
          if (slot_size <= 0) {
            ctx.Error("keyword 'slot_size' must be a positive byte count (at least the largest tile that crosses), "
                      "got " + std::to_string(slot_size));
          }
          int64_t slots = ctx.KwargAs<int64_t>("slot_num").value_or(0);
          int64_t depth = mask == (kDirC2V | kDirV2C) ? kSlotsTwoDirections : kSlotsOneDirection;
          if (slots < 0) {
            ctx.Error("keyword 'slot_num' must be >= 0 (0 takes the hardware's depth), got " + std::to_string(slots));
          }
          if (slots > depth) {
            ctx.Error("slot_num=" + std::to_string(slots) + " exceeds the hardware's " + std::to_string(depth) +
                      " slots per direction with dir_mask=" + std::to_string(mask) +
                      " (8 flags per direction and Vector-Cube pair, shared when both directions are active); use "
                      "slot_num <= " + std::to_string(depth) + ", or 0 for the hardware's depth");
          }
          return UnknownType::Make();
        });
  }
}

// A5 keeps a ring in the consumer's own buffer: the consumer reserves the
// bytes (AllocateMemoryAddr keeps them free and writes the address into
// `base`), the producer imports the address by the buffer's name.
void RegisterBufferReservations() {
  PipeOp("system.reserve_buffer",
         "Keep `size` bytes of this kernel's buffer (Vec on an AIV lane, Mat on the AIC) free for a cross-core ring; "
         "the result is their address")
      .set_no_pipe()
      .add_required_kwarg("name", AttrKind::kString, "the buffer's name, for the peer's import")
      .add_required_kwarg("size", AttrKind::kInt, "bytes")
      .add_kwarg("base", AttrKind::kInt, int64_t{-1}, "the address; -1 (pl.AUTO) lets AllocateMemoryAddr choose")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        if (ctx.KwargAs<std::string>("name")->empty()) ctx.Error("keyword 'name' is empty; name the buffer");
        int64_t size = *ctx.KwargAs<int64_t>("size");
        if (size <= 0) ctx.Error("keyword 'size' must be a positive byte count, got " + std::to_string(size));
        int64_t base = ctx.KwargAs<int64_t>("base").value_or(-1);
        if (base < -1) ctx.Error("keyword 'base' must be an address >= 0 or pl.AUTO (-1), got " + std::to_string(base));
        return ScalarType::Make(DataType::INT64);
      });
  PipeOp("system.import_peer_buffer",
         "The address of the buffer `name` that the peer kernel `peer` of the same Group reserves")
      .set_no_pipe()
      .add_required_kwarg("name", AttrKind::kString, "the name the peer gave system.reserve_buffer")
      .add_required_kwarg("peer", AttrKind::kString, "the peer kernel (pl.import_peer_buffer(name=, peer=self.k))")
      .add_kwarg("base", AttrKind::kInt, int64_t{-1}, "the address, which AllocateMemoryAddr fills in")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        if (ctx.KwargAs<std::string>("name")->empty()) ctx.Error("keyword 'name' is empty; name the peer's buffer");
        if (ctx.KwargAs<std::string>("peer")->empty()) ctx.Error("keyword 'peer' is empty; name the peer kernel");
        return ScalarType::Make(DataType::INT64);
      });
}

// pl.split_aiv regions (a hand-split mixed kernel): the tile ops naming where a
// tile crosses, which ExpandMixedKernel turns into a push and a pop. Tile ops,
// not cross-core ops: until that pass they are ordinary values.
void RegisterRegionCrossings() {
  struct Crossing {
    const char* name;
    const char* description;
    MemorySpace from;
    MemorySpace to;
    bool halves;  // the lane's half of the cube tile; else the lanes' halves joined
  };
  for (const Crossing& c :
       {Crossing{"tile.aiv_shard",
                 "In a pl.split_aiv region: this lane's part (half under UP_DOWN/LEFT_RIGHT) of a cube tile, as a "
                 "Vec tile",
                 MemorySpace::Acc, MemorySpace::Vec, true},
        Crossing{"tile.aic_gather",
                 "Outside a pl.split_aiv region: the lanes' tiles of a region's Vec value joined (UP_DOWN: "
                 "stacked, LEFT_RIGHT: side by side) into one Mat tile for the cube work",
                 MemorySpace::Vec, MemorySpace::Mat, false}}) {
    OpRegistry::Global()
        .Register(c.name)
        .set_category(OpCategory::kTileOp)
        .set_description(c.description)
        .set_placement(Placement::kInCoreOnly)
        .add_argument("tile", c.halves ? "a 2-D cube tile (Acc or Mat)" : "a 2-D Vec tile of the region")
        .add_kwarg("split", AttrKind::kInt, int64_t{0}, "the region's split: 0 none, 1 up_down, 2 left_right")
        .set_input_memory(0, c.halves ? std::vector<MemorySpace>{MemorySpace::Acc, MemorySpace::Mat}
                                      : std::vector<MemorySpace>{MemorySpace::Vec})
        .set_output_memory(c.to)
        .set_type_deduce([halves = c.halves](const DeduceContext& ctx) -> TypePtr {
          int64_t split = CodeKwarg(ctx, "split", SplitNames());
          ArrayInfo tile = ArrayArg(ctx, 0, ArrayKind::kTile);
          RequireRank(ctx, 0, tile, 2);
          Shape shape = tile.shape;
          if (split == kSplitUpDown || split == kSplitLeftRight) {
            size_t axis = split == kSplitUpDown ? 0 : 1;
            auto extent = AsConstInt(shape[axis]);
            if (!extent) ctx.Error("argument 'tile' has a dynamic extent along the split axis");
            if (halves) RequireSplittable(ctx, split, shape, "the sharded tile");
            shape[axis] = ConstInt::Make(halves ? *extent / 2 : *extent * 2, DataType::INDEX);
          }
          return MakeTileType(ctx, std::move(shape), tile.dtype);
        });
  }
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterRegionCrossings();
  RegisterBufferReservations();
  RegisterPushes();
  RegisterPops();
  RegisterFrees();
  RegisterInits();
  return true;
}();

}  // namespace
}  // namespace pypto::ops
