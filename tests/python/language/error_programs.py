"""Programs the parser must reject. The line each error points at ends in `# ERR`."""

import pypto.language as pl

NotAType = 42


class TensorOpInOrchestration:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        b = pl.add(a, a)  # ERR
        return b


class MissingAnnotation:
    @pl.function
    def f(self, a):  # ERR
        return


class AliasNotAType:
    @pl.function
    def f(self, a: NotAType):  # ERR
        return


class ReassignDifferentType:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        x = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        x = a  # ERR
        return


class TileOpOnControlPlane:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)  # ERR
        return


class TensorCreateInCore:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        t = pl.tensor.create([64, 64], dtype=pl.FP32)  # ERR
        return


class LoadIntoLeft:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP16]):
        t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Left)  # ERR
        return


class UnknownPlAttribute:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        t = pl.lrelu(a, 0.1)  # ERR
        return


class YieldArity:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.range(0, n, 1, init_values=(0,)):
            a, b = pl.yield_(acc, i)  # ERR
        return a


class YieldType:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX], x: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.range(0, n, 1, init_values=(0,)):
            out = pl.yield_(x)  # ERR
        return out


class IfYieldArity:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        if a > 0:
            r = pl.yield_(a)
        else:
            r, s = pl.yield_(a, a)  # ERR
        return r


class CondNotFirst:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for (x,) in pl.while_(init_values=(0,)):
            y = x + 1  # ERR
            pl.cond(x < n)
            r = pl.yield_(y)
        return r


class UnrollNotLiteral:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]):
        for i in pl.unroll(0, n, 1):  # ERR
            pass
        return


class WrongArgCount:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        return pl.exp(a)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        r = self.k(a, a)  # ERR
        return r


class WrongArgDtype:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        return pl.exp(a)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP32]:
        r = self.k(a)  # ERR
        return r


class OpArgCount:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        t = pl.tile.load(a, [0, 0])  # ERR
        return


class OpDtypeMismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.INT32]):
        c = pl.tensor.exp(a)  # ERR
        return


class PrintInBody:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]):
        print(n)  # ERR
        return


class PythonRange:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]):
        for i in range(4):  # ERR
            pass
        return


class KeywordOnOtherLevel:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP16]):
        t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        l = pl.move(t, target_memory=pl.Mem.Left)
        r = pl.move(t, target_memory=pl.Mem.Right)
        c = pl.matmul(l, r, b_trans=True)  # ERR
        return


class FuncAttrNotFirst:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]):
        x = n + 1
        pl.func_attr({"a": 1})  # ERR
        return


class BreakInParallel:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]):
        for i in pl.parallel(n):
            break  # ERR
        return


class ContinueAfterACarriedUpdate:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc = 0
        for i in pl.range(n):
            acc = acc + i
            if i == 2:
                continue  # ERR
            acc = acc * 2
        return acc


class BreakAfterACarriedUpdateInAWhileLoop:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        k = n
        while k > 1:
            k = k - 3
            if k == 4:
                break  # ERR
        return k


class UndefinedName:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        return n + missing  # ERR


class BareTensorOutsideJit:
    @pl.function
    def f(self, a: pl.Tensor):  # ERR
        return


class AnnotationMismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        x: pl.Tensor[[64, 64], pl.FP16] = pl.exp(a)  # ERR
        return


class LoopTypeChange:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]):
        x = n
        for i in pl.range(4):
            x = pl.exp(a)  # ERR
        return


class IfTypeMismatch:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX], x: pl.Scalar[pl.FP32]):
        if a > 0:  # ERR
            r = 1
        else:
            r = x
        return


class UnsupportedStatement:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX]):
        try:  # ERR
            pass
        finally:
            pass


class TensorCondition:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        if a:  # ERR
            pass
        return


class YieldNotLast:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]):
        for i, (acc,) in pl.range(0, n, 1, init_values=(0,)):
            r = pl.yield_(acc)  # ERR
            x = acc + 1
        return


class YieldInOneBranch:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX]):
        if a > 0:  # ERR
            r = pl.yield_(a)
        else:
            pass
        return


class RangeAsValue:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX]):
        r = pl.range(4)  # ERR
        return


class AtWithoutLevel:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        with pl.at(name_hint="x"):  # ERR
            pass
        return


class PipelineWithoutStage:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]):
        for i in pl.pipeline(0, n, 1):  # ERR
            pass
        return


class UnknownMethod:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        r = self.kernel(a)  # ERR
        return


class ClusterAsTid:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        with pl.cluster() as tid:  # ERR
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.exp(a)
        return


class HostScopeAsTid:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator) as tid:  # ERR
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.exp(a)
        return


class TaskIdInsideItsScope:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP) as tid:
            b = pl.exp(a)
            ids = pl.array.create(1, dtype=pl.TASK_ID)
            ids[0] = tid  # ERR
        return


class TaskIdInItsOwnDeps:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]) as tid:  # ERR
            b = pl.exp(a)
        return


class DepsOfAnotherType:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP, deps=[n]):  # ERR
            b = pl.exp(a)
        return


class DepsNotAList:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], t: pl.Scalar[pl.TASK_ID]):
        with pl.at(level=pl.Level.CORE_GROUP, deps=t):  # ERR
            b = pl.exp(a)
        return


class SpmdDepsWithoutTid:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], t: pl.Scalar[pl.TASK_ID]):
        with pl.spmd(4, deps=[t]):  # ERR
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.exp(a)
        return


class SpmdForDeps:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[512, 64], pl.FP32], t: pl.Scalar[pl.TASK_ID]):
        for blk in pl.spmd(8, deps=[t]):  # ERR
            x = pl.tile.load(a, [blk * 64, 0], [64, 64], target_memory=pl.Mem.Vec)
        return


class TaskIdRebindsAnotherType:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP) as n:  # ERR
            b = pl.exp(a)
        return


class AsTuple:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP) as (t, u):  # ERR
            b = pl.exp(a)
        return



class ConstFloatForInt:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX]):
        x = a + pl.const(1.5, pl.INT32)  # ERR
        return

# name, program, exception class, message fragment, hint fragment
CASES = [
    ("tensor_op_in_orchestration", TensorOpInOrchestration, pl.PlacementError,
     "Misplaced tensor op 'tensor.add'", "pl.at(level=pl.Level.CORE_GROUP)"),
    ("missing_annotation", MissingAnnotation, pl.ParseTypeError, "parameter 'a' needs a type annotation",
     "pl.Tensor"),
    ("alias_not_a_type", AliasNotAType, pl.ParseTypeError, "does not name a type", "pl.Tensor"),
    ("reassign_different_type", ReassignDifferentType, pl.ParseTypeError, "'x' was pl.Tile", "new name"),
    ("tile_op_on_control_plane", TileOpOnControlPlane, pl.PlacementError, "tile op 'tile.load' on the control plane",
     "CORE_GROUP"),
    ("tensor_create_in_incore", TensorCreateInCore, pl.PlacementError, "tensor creation inside InCore code",
     "pl.Out"),
    ("load_into_left", LoadIntoLeft, pl.ParseValueError, "cannot load straight into Left", "pl.tile.move"),
    ("unknown_pl_attribute", UnknownPlAttribute, pl.ParseTypeError, "pl.lrelu does not exist", "pl.tile.lrelu"),
    ("yield_arity", YieldArity, pl.ParseValueError, "yield arity mismatch", ""),
    ("yield_type", YieldType, pl.ParseTypeError, "yield type mismatch", "keep"),
    ("if_yield_arity", IfYieldArity, pl.ParseValueError, "yield arity mismatch", ""),
    ("cond_not_first", CondNotFirst, pl.ParseSyntaxError, "pl.cond(...) must be the first statement", "pl.cond"),
    ("unroll_not_literal", UnrollNotLiteral, pl.ParseValueError, "pl.unroll needs literal bounds", "pl.range"),
    ("wrong_arg_count", WrongArgCount, pl.ParseTypeError, "'k' takes 1 arguments (a), got 2", ""),
    ("wrong_arg_dtype", WrongArgDtype, pl.ParseTypeError, "argument 'a' of 'k' must be pl.Tensor[[64, 64], pl.FP32]",
     ""),
    ("op_arg_count", OpArgCount, pl.ParseTypeError,
     "tile.load takes 3 to 4 positional argument(s) but 2 were given", ""),
    ("op_dtype_mismatch", OpDtypeMismatch, pl.ParseTypeError, "must be a Tensor of a floating-point dtype",
     "signature"),
    ("print_in_body", PrintInBody, pl.ParseSyntaxError, "print() is not allowed in a kernel body", "remove"),
    ("python_range", PythonRange, pl.ParseSyntaxError, "Python range() in a kernel", "pl.range"),
    ("keyword_on_other_level", KeywordOnOtherLevel, pl.ParseTypeError,
     "keyword 'b_trans' is only valid for tensor operands", "drop 'b_trans='"),
    ("func_attr_not_first", FuncAttrNotFirst, pl.ParseSyntaxError, "pl.func_attr must be the first statement", ""),
    ("break_in_parallel", BreakInParallel, pl.ParseSyntaxError, "'break' is not allowed in a parallel loop", ""),
    ("continue_after_update", ContinueAfterACarriedUpdate, pl.ParseSyntaxError,
     "'acc' is carried by the loop and was reassigned earlier in this iteration, but the next iteration",
     "else branch"),
    ("break_after_update", BreakAfterACarriedUpdateInAWhileLoop, pl.ParseSyntaxError,
     "'k' is carried by the loop and was reassigned earlier in this iteration, but the loop's result",
     "move the 'break' before the assignment"),
    ("undefined_name", UndefinedName, pl.ParseValueError, "name 'missing' is not defined", ""),
    ("bare_tensor_outside_jit", BareTensorOutsideJit, pl.ParseTypeError, "bare pl.Tensor", "[[64, 64], pl.FP32]"),
    ("annotation_mismatch", AnnotationMismatch, pl.ParseTypeError, "annotated pl.Tensor[[64, 64], pl.FP16]",
     "pl.cast"),
    ("loop_type_change", LoopTypeChange, pl.ParseTypeError, "reassigned", ""),
    ("if_type_mismatch", IfTypeMismatch, pl.ParseTypeError, "'r' is pl.Scalar[pl.INDEX] in one branch", ""),
    ("unsupported_statement", UnsupportedStatement, pl.ParseSyntaxError, "Try statements are not allowed", ""),
    ("tensor_condition", TensorCondition, pl.ParseTypeError, "a condition must be a scalar", "i < n"),
    ("yield_not_last", YieldNotLast, pl.ParseSyntaxError, "pl.yield_ must be the last statement", ""),
    ("yield_in_one_branch", YieldInOneBranch, pl.ParseSyntaxError, "the other must too", ""),
    ("range_as_value", RangeAsValue, pl.ParseSyntaxError, "pl.range is only valid as the iterable of a for loop", ""),
    ("at_without_level", AtWithoutLevel, pl.ParseTypeError, "pl.at needs level=", ""),
    ("pipeline_without_stage", PipelineWithoutStage, pl.ParseTypeError, "pl.pipeline needs stage=", "stage=2"),
    ("unknown_method", UnknownMethod, pl.ParseValueError, "the program has no function 'kernel'", "@pl.function"),
    ("cluster_as_tid", ClusterAsTid, pl.ParseSyntaxError, "pl.cluster() is not a task and has no task id",
     "drop `as ...`"),
    ("host_scope_as_tid", HostScopeAsTid, pl.ParseSyntaxError,
     "only pl.at(level=pl.Level.CORE_GROUP) is a task with a task id, not level HOST", "drop `as ...`"),
    ("task_id_inside_its_scope", TaskIdInsideItsScope, pl.ParseValueError,
     "'tid' is the task id of the scope at line", "deps=[tid] of a later scope"),
    ("task_id_in_its_own_deps", TaskIdInItsOwnDeps, pl.ParseValueError,
     "'tid' is the task id of the scope at line", "after the scope"),
    ("deps_of_another_type", DepsOfAnotherType, pl.ParseTypeError,
     "a deps= entry must be a task id (pl.Scalar[pl.TASK_ID]) or an array of them, got pl.Scalar[pl.INDEX]",
     "pl.array.create(n, pl.TASK_ID)"),
    ("deps_not_a_list", DepsNotAList, pl.ParseTypeError, "deps= takes a list of task ids", "deps=[tid]"),
    ("spmd_deps_without_tid", SpmdDepsWithoutTid, pl.ParseTypeError, "pl.spmd() does not accept 'deps=' here",
     "as tid"),
    ("spmd_for_deps", SpmdForDeps, pl.ParseTypeError, "pl.spmd() does not accept 'deps=' here", "as tid"),
    ("task_id_rebinds_another_type", TaskIdRebindsAnotherType, pl.ParseTypeError,
     "'n' was pl.Scalar[pl.INDEX] and is rebound as a task id", "use a new name"),
    ("as_tuple", AsTuple, pl.ParseSyntaxError, "`as` binds one name", "`as tid`"),
    ("const_float_for_int", ConstFloatForInt, pl.ParseTypeError, "1.5 is not a value of the integer dtype INT32",
     "floating-point dtype"),
]
