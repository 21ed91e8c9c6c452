#include "cast_chain.h"

#include <algorithm>
#include <cmath>
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

// A chain's rank: total loss of its intermediate dtypes, then their list positions.
using ChainRank = std::pair<int, std::vector<int>>;

ChainRank RankOf(const backend::Platform& platform, DataType from, const std::vector<DataType>& chain) {
  ChainRank rank;
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    rank.first += CastLoss(from, chain[i]);
    rank.second.push_back(ListPosition(platform, chain[i]));
  }
  return rank;
}

}  // namespace

int CastLoss(DataType source, DataType intermediate) {
  auto held = ModelOf(source);
  auto holder = ModelOf(intermediate);
  if (!held || !holder) return 2;
  if (holder->lowest > held->lowest || holder->highest < held->highest) return 2;
  const bool exact = held->is_float ? holder->is_float && holder->significand_bits >= held->significand_bits &&
                                          holder->min_normal_exponent <= held->min_normal_exponent
                                    : !holder->is_float || holder->significand_bits >= held->significand_bits;
  return exact ? 0 : 1;
}

std::optional<std::vector<DataType>> NativeCastChain(const backend::Platform& platform, DataType from, DataType to) {
  if (from == to) return std::vector<DataType>{};
  if (platform.SupportsCast(from, to)) return std::vector<DataType>{to};
  const std::map<int, int> distance = CastDistances(platform, from);
  auto target = distance.find(static_cast<int>(to.code()));
  if (target == distance.end()) return std::nullopt;
  const int steps = target->second;

  // Every chain of `steps` casts: each step moves one breadth-first layer out.
  std::optional<std::vector<DataType>> best;
  ChainRank best_rank;
  std::vector<DataType> chain;
  std::function<void(DataType)> extend = [&](DataType current) {
    if (static_cast<int>(chain.size()) == steps) {
      if (current != to) return;
      ChainRank rank = RankOf(platform, from, chain);
      if (!best || rank < best_rank) {
        best = chain;
        best_rank = std::move(rank);
      }
      return;
    }
    for (const auto& [source, next] : platform.casts) {
      if (source != current) continue;
      auto layer = distance.find(static_cast<int>(next.code()));
      if (layer->second != static_cast<int>(chain.size()) + 1) continue;
      chain.push_back(next);
      extend(next);
      chain.pop_back();
    }
  };
  extend(from);
  return best;
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
