#include "cast_chain.h"

#include <algorithm>
#include <cmath>
#include <compare>
#include <deque>
#include <functional>
#include <map>
#include <utility>

namespace pypto::passes {

using ir::DataType;

namespace {

// The values a dtype holds, as far as the choice between chains needs them.
struct ValueModel {
  double lowest;
  double highest;
  int significand_bits;     // integers: magnitude bits; floats: mantissa bits with the implicit one
  int min_normal_exponent;  // floats only: the smallest normal exponent
  bool is_float;
};

std::optional<ValueModel> FloatModel(DataType dtype) {
  struct Entry {
    DataType dtype;
    double highest;
    int significand_bits;
    int min_normal_exponent;
  };
  // HF8 (HiFloat8) has tapered precision: the entry gives its best precision
  // and its normal range, which is what decides whether it can stand in for
  // another dtype.
  static const Entry kFloats[] = {
      {DataType::FP16, 65504.0, 11, -14},
      {DataType::BF16, 3.38953139e38, 8, -126},
      {DataType::FP32, 3.40282347e38, 24, -126},
      {DataType::FP64, 1.7976931348623157e308, 53, -1022},
      {DataType::FP8E4M3FN, 448.0, 4, -6},
      {DataType::FP8E5M2, 57344.0, 3, -14},
      {DataType::FP8E8M0, std::ldexp(1.0, 127), 1, -127},
      {DataType::HF8, std::ldexp(1.0, 15), 4, -15},
      {DataType::FP4, 6.0, 2, 0},
  };
  for (const auto& entry : kFloats) {
    if (entry.dtype == dtype) {
      return ValueModel{-entry.highest, entry.highest, entry.significand_bits, entry.min_normal_exponent, true};
    }
  }
  return std::nullopt;
}

std::optional<ValueModel> ModelOf(DataType dtype) {
  if (dtype.is_bool()) return ValueModel{0.0, 1.0, 1, 0, false};
  const int bits = dtype.bits();
  if (dtype.is_signed_int()) {
    return ValueModel{-std::ldexp(1.0, bits - 1), std::ldexp(1.0, bits - 1) - 1.0, bits - 1, 0, false};
  }
  if (dtype.is_unsigned_int()) return ValueModel{0.0, std::ldexp(1.0, bits) - 1.0, bits, 0, false};
  return FloatModel(dtype);
}

// The fewest magnitude bits that hold every integer of [lowest, highest]
// (a float holds them all when its significand has as many).
int MagnitudeBits(double lowest, double highest) {
  const double magnitude = std::max(-lowest, highest);
  int bits = 0;
  while (std::ldexp(1.0, bits) < magnitude) ++bits;
  return bits;
}

// The values of `model` within [lowest, highest].
ValueModel Within(ValueModel model, double lowest, double highest) {
  model.lowest = std::max(model.lowest, lowest);
  model.highest = std::min(model.highest, highest);
  if (!model.is_float) {
    model.significand_bits = std::min(model.significand_bits, MagnitudeBits(model.lowest, model.highest));
  }
  return model;
}

// What of `values` a cast to `to` (whose values are `target`) depends on:
// those within the target's range, and for an integer target not the digits
// of magnitudes under 1/2, which round by their sign alone (a float whose
// normal range reaches 1/2 keeps that, rounding in the cast's mode).
ValueModel TheCastKeeps(const ValueModel& values, DataType to, const ValueModel& target) {
  ValueModel kept = Within(values, target.lowest, target.highest);
  if (to.is_int()) kept.min_normal_exponent = std::max(kept.min_normal_exponent, -1);
  return kept;
}

bool HoldsRange(const ValueModel& values, const ValueModel& holder) {
  return holder.lowest <= values.lowest && holder.highest >= values.highest;
}

// Whether `holder` represents every one of `values` exactly.
bool HoldsExactly(const ValueModel& values, const ValueModel& holder) {
  if (!HoldsRange(values, holder)) return false;
  if (!values.is_float) return !holder.is_float || holder.significand_bits >= values.significand_bits;
  return holder.is_float && holder.significand_bits >= values.significand_bits &&
         holder.min_normal_exponent <= values.min_normal_exponent;
}

// CastLoss on value models.
int Loss(const ValueModel& values, const ValueModel& holder) {
  if (!HoldsRange(values, holder)) return 2;
  return HoldsExactly(values, holder) ? 0 : 1;
}

// Where `dtype` sits in the platform's dtypes list; dtypes missing from it
// sort after every listed one, by code.
int ListPosition(const backend::Platform& platform, DataType dtype) {
  auto it = std::find(platform.dtypes.begin(), platform.dtypes.end(), dtype);
  if (it != platform.dtypes.end()) return static_cast<int>(it - platform.dtypes.begin());
  return static_cast<int>(platform.dtypes.size()) + static_cast<int>(dtype.code());
}

// Fewest native casts from `from` to every dtype it reaches, keyed by code.
std::map<int, int> CastDistances(const backend::Platform& platform, DataType from) {
  std::map<int, int> distance{{static_cast<int>(from.code()), 0}};
  std::deque<DataType> queue{from};
  while (!queue.empty()) {
    DataType current = queue.front();
    queue.pop_front();
    const int next_distance = distance.at(static_cast<int>(current.code())) + 1;
    for (const auto& [source, target] : platform.casts) {
      if (source != current) continue;
      if (distance.emplace(static_cast<int>(target.code()), next_distance).second) queue.push_back(target);
    }
  }
  return distance;
}

// A chain's rank, compared member by member, lowest best (see NativeCastChain).
struct ChainRank {
  int unfaithful = 0;  // hops that wrap, saturate or coarsely round a value the cast keeps
  int roundings = 0;   // hops that round onto a grid at least as fine as the target's
  size_t steps = 0;
  int loss = 0;  // CastLoss of the intermediates (for the values the cast keeps), summed
  std::vector<int> positions;
  auto operator<=>(const ChainRank&) const = default;
};

// Ranks the chain that takes `values` of dtype `from` to `to`. A cast
// between integers wraps modulo 2^bits of `to`, so every value must arrive
// exactly or wrapped modulo a multiple of that. Any other cast saturates
// what lies beyond the target's range and rounds the rest once: only values
// within the range need arrive exactly or rounded once onto the target's
// grid; those beyond it need only stay beyond it, which every float hop and
// every cast from a float does (they saturate) and an integer hop too narrow
// for them does not (it wraps them).
ChainRank RankOf(const backend::Platform& platform, DataType from, DataType to, const std::optional<ValueModel>& values,
                 const std::vector<DataType>& chain) {
  ChainRank rank;
  rank.steps = chain.size();
  for (size_t i = 0; i + 1 < chain.size(); ++i) rank.positions.push_back(ListPosition(platform, chain[i]));
  const std::optional<ValueModel> target = ModelOf(to);
  if (!values || !target) {
    rank.unfaithful = static_cast<int>(chain.size());
    return rank;
  }
  const bool wraps = from.is_int() && to.is_int();
  const ValueModel start = wraps ? *values : TheCastKeeps(*values, to, *target);
  ValueModel carried = start;
  ValueModel beyond = *values;  // every value, those beyond the target's range too
  DataType current = from;
  for (DataType next : chain) {
    const std::optional<ValueModel> model = ModelOf(next);
    if (next != to) rank.loss += model ? Loss(start, *model) : 2;
    const bool integer_hop = current.is_int() && next.is_int();
    current = next;
    if (!model) {
      ++rank.unfaithful;
    } else if (wraps && integer_hop && next.bits() >= to.bits()) {
      if (!HoldsRange(carried, *model)) carried = *model;  // wrapped, as the cast would
    } else if (!HoldsExactly(carried, *model) || (integer_hop && !HoldsRange(beyond, *model))) {
      const bool rounds_finer = !wraps && !integer_hop && HoldsRange(carried, *model) &&
                                HoldsExactly(Within(*target, carried.lowest, carried.highest), *model);
      ++(rounds_finer ? rank.roundings : rank.unfaithful);
      carried = Within(*model, carried.lowest, carried.highest);
    }
    if (model) beyond = Within(beyond, model->lowest, model->highest);
  }
  return rank;
}

struct RankedChain {
  std::vector<DataType> chain;
  ChainRank rank;
};

// The best of every chain of native casts from `from` to `to` that passes
// no dtype twice (the tables are small graphs), for `values` of `from`.
std::optional<RankedChain> BestChain(const backend::Platform& platform, DataType from, DataType to,
                                     const std::optional<ValueModel>& values) {
  std::optional<RankedChain> best;
  std::vector<DataType> chain;
  std::function<void(DataType)> extend = [&](DataType current) {
    if (current == to) {
      ChainRank rank = RankOf(platform, from, to, values, chain);
      if (!best || rank < best->rank) best = RankedChain{chain, std::move(rank)};
      return;
    }
    for (const auto& [source, next] : platform.casts) {
      if (source != current || next == from || std::find(chain.begin(), chain.end(), next) != chain.end()) continue;
      chain.push_back(next);
      extend(next);
      chain.pop_back();
    }
  };
  extend(from);
  return best;
}

// An integer dtype for an integer cast to wrap in: it holds both dtypes'
// ranges, and chains lead exactly from `from` to it and, for values in the
// target's range, on to `to`. The fewest casts win, then the dtype listed first.
std::optional<CastPlan> WrapPlan(const backend::Platform& platform, DataType from, DataType to) {
  const ValueModel source = *ModelOf(from);
  const ValueModel target = *ModelOf(to);
  std::optional<CastPlan> best;
  for (DataType work : platform.dtypes) {
    const std::optional<ValueModel> model = ModelOf(work);
    if (!work.is_int() || !model || !HoldsRange(source, *model) || !HoldsRange(target, *model)) continue;
    std::optional<RankedChain> before;
    if (work != from) {
      before = BestChain(platform, from, work, source);
      if (!before || before->rank.unfaithful > 0) continue;
    }
    std::optional<RankedChain> after = BestChain(platform, work, to, target);
    if (!after || after->rank.unfaithful > 0) continue;
    CastPlan plan{before ? before->chain : std::vector<DataType>{}, work, after->chain};
    if (!best || plan.chain.size() + plan.after_wrap.size() < best->chain.size() + best->after_wrap.size()) {
      best = std::move(plan);
    }
  }
  return best;
}

}  // namespace

int CastLoss(DataType source, DataType intermediate) {
  auto held = ModelOf(source);
  auto holder = ModelOf(intermediate);
  if (!held || !holder) return 2;
  return Loss(*held, *holder);
}

std::optional<std::vector<DataType>> NativeCastChain(const backend::Platform& platform, DataType from, DataType to) {
  if (from == to) return std::vector<DataType>{};
  if (platform.SupportsCast(from, to)) return std::vector<DataType>{to};
  std::optional<RankedChain> best = BestChain(platform, from, to, ModelOf(from));
  if (!best) return std::nullopt;
  return best->chain;
}

std::optional<CastPlan> PlanCast(const backend::Platform& platform, DataType from, DataType to) {
  if (from == to || platform.SupportsCast(from, to)) return CastPlan{*NativeCastChain(platform, from, to)};
  std::optional<RankedChain> best = BestChain(platform, from, to, ModelOf(from));
  if (!best) return std::nullopt;
  if (best->rank.unfaithful > 0 && from.is_int() && to.is_int()) {
    if (std::optional<CastPlan> wrapped = WrapPlan(platform, from, to)) return wrapped;
  }
  return CastPlan{best->chain};
}

std::vector<DataType> DirectCastTargets(const backend::Platform& platform, DataType from) {
  std::vector<DataType> targets;
  for (const auto& [source, target] : platform.casts) {
    if (source == from) targets.push_back(target);
  }
  return targets;
}

std::vector<DataType> ChainedCastTargets(const backend::Platform& platform, DataType from) {
  std::vector<DataType> targets;
  for (const auto& [code, steps] : CastDistances(platform, from)) {
    if (steps >= 2) targets.push_back(*DataType::FromCode(code));
  }
  std::sort(targets.begin(), targets.end(),
            [&](DataType a, DataType b) { return ListPosition(platform, a) < ListPosition(platform, b); });
  return targets;
}

}  // namespace pypto::passes
