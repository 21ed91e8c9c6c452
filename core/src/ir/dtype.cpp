#include "pypto/ir/dtype.h"

#include <algorithm>

namespace pypto::ir {

namespace {
struct DTypeInfo {
  DataTypeCode code;
  const char* name;
  int bits;
  char kind;
};

constexpr DTypeInfo kInfos[] = {
#define PYPTO_X(name, code, bits, kind) {DataTypeCode::name, #name, bits, (#kind)[0]},
    PYPTO_DTYPE_LIST(PYPTO_X)
#undef PYPTO_X
};

const DTypeInfo& InfoOf(DataTypeCode code) {
  for (const auto& info : kInfos) {
    if (info.code == code) return info;
  }
  return kInfos[0];
}
}  // namespace

int DataType::bits() const { return InfoOf(code_).bits; }
const char* DataType::name() const { return InfoOf(code_).name; }
bool DataType::is_bool() const { return InfoOf(code_).kind == 'b'; }
bool DataType::is_signed_int() const { return InfoOf(code_).kind == 's'; }
bool DataType::is_unsigned_int() const { return InfoOf(code_).kind == 'u'; }
bool DataType::is_int() const { return is_signed_int() || is_unsigned_int(); }
bool DataType::is_float() const { return InfoOf(code_).kind == 'f'; }

std::optional<DataType> DataType::FromName(const std::string& name) {
  for (const auto& info : kInfos) {
    if (name == info.name) return DataType(info.code);
  }
  return std::nullopt;
}

std::optional<DataType> DataType::FromCode(int code) {
  for (const auto& info : kInfos) {
    if (static_cast<int>(info.code) == code) return DataType(info.code);
  }
  return std::nullopt;
}

const std::vector<DataType>& DataType::All() {
  static const std::vector<DataType> all = [] {
    std::vector<DataType> v;
    for (const auto& info : kInfos) v.emplace_back(info.code);
    return v;
  }();
  return all;
}

DataType PromoteTypes(DataType a, DataType b) {
  if (a == b) return a;
  if (a.is_bool()) return b;
  if (b.is_bool()) return a;
  if (a.is_float() != b.is_float()) return a.is_float() ? a : b;
  if (a.bits() != b.bits()) return a.bits() > b.bits() ? a : b;
  // Equal width: a signed integer wins over an unsigned one; INDEX over INT64.
  if (a.is_int() && b.is_int()) {
    if (a.is_signed_int() != b.is_signed_int()) return a.is_signed_int() ? a : b;
    if (a.is_index() || b.is_index()) return DataType::INDEX;
  }
  // Two floats of one width (FP16 vs BF16): FP32 holds both exactly.
  if (a.is_float() && b.is_float() && a.bits() == 16) return DataType::FP32;
  return a;
}

}  // namespace pypto::ir
