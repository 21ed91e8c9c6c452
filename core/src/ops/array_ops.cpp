// array.*: small fixed-size arrays of scalars (TaskId lists, counters). An
// update is functional in the IR (it yields the updated array) and in place in
// the generated code, so update_element reuses and rewrites its array.
#include "pypto/ops/registry.h"
#include "pypto/ops/type_rules.h"

namespace pypto::ops {
namespace {

using namespace pypto::ir;

OpDef& ArrayOp(const std::string& name, std::string description) {
  return OpRegistry::Global().Register(name).set_category(OpCategory::kArrayOp).set_description(std::move(description));
}

Ref<ArrayType> ArrayArgOf(const DeduceContext& ctx, size_t i) {
  auto array = As<ArrayType>(ctx.arg(i)->type);
  if (!array) ctx.ArgError(i, "an Array");
  return array;
}

// The index must be an integer; a constant one must be inside a constant extent.
void RequireIndex(const DeduceContext& ctx, size_t i, const ArrayType& array) {
  if (!ctx.ScalarArg(i).is_int()) ctx.ArgError(i, "an integer scalar");
  auto index = AsConstInt(ctx.arg(i));
  auto extent = AsConstInt(array.size);
  if (!index || (*index >= 0 && (!extent || *index < *extent))) return;
  ctx.Error("index " + std::to_string(*index) + " is out of range for an array of " + DimString(array.size) +
            " elements");
}

[[maybe_unused]] const bool kRegistered = [] {
  ArrayOp("array.create", "A fixed-size array of integers, BOOLs or TaskIds")
      .add_argument("extent", "element count (positive constant)")
      .add_required_kwarg("dtype", AttrKind::kDataType, "integer, BOOL or TASK_ID")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        int64_t extent = ConstIntArg(ctx, 0);
        if (extent <= 0) ctx.Error("extent must be positive, got " + std::to_string(extent));
        DataType dtype = *ctx.KwargAs<DataType>("dtype");
        if (!dtype.is_int() && !dtype.is_bool() && dtype != DataType::TASK_ID) {
          ctx.Error(std::string("dtype must be an integer, BOOL or TASK_ID, got ") + dtype.name());
        }
        return ArrayType::Make(dtype, ctx.arg(0));
      });

  ArrayOp("array.get_element", "Read one element")
      .add_argument("array", "source array")
      .add_argument("index", "integer scalar")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto array = ArrayArgOf(ctx, 0);
        RequireIndex(ctx, 1, *array);
        return ScalarType::Make(array->dtype);
      });

  ArrayOp("array.update_element", "The array with one element replaced")
      .add_argument("array", "source array")
      .add_argument("index", "integer scalar")
      .add_argument("value", "scalar of the array's dtype")
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_output_reuses_input(0)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto array = ArrayArgOf(ctx, 0);
        RequireIndex(ctx, 1, *array);
        DataType value = ctx.ScalarArg(2);
        // Integer literals are INDEX; they store into any integer array.
        bool fits = value == array->dtype || (value.is_int() && array->dtype.is_int());
        if (!fits) ctx.ArgError(2, std::string("a ") + array->dtype.name() + " scalar");
        return array;
      });
  return true;
}();

}  // namespace
}  // namespace pypto::ops
