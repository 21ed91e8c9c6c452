"""DSL programs the language tests parse. Classes here are not decorated with @pl.program: each
test applies it, so that one failing program does not hide the others."""

import pypto.language as pl

N = pl.dynamic("N")
M = pl.dynamic("M")
TILE = 64
HALF = TILE // 2
Row = pl.Tensor[[1, 128], pl.FP16]
F32 = pl.FP32


class TileAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
            out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tb = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        s = pl.tile.add(ta, tb)
        out = pl.tile.store(s, [0, 0], out)
        return out


class Dispatched:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        e = pl.exp(t)
        s = pl.add(e, t)
        s2 = pl.add(s, 1.0)
        m = pl.mul(s2, 2.0)
        out = pl.store(m, [0, 0], out)
        return out


class TensorLevel:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        c = pl.add(a, b)
        d = pl.mul(c, 0.5)
        e = pl.exp(d)
        f = a + e
        g = f * b
        return g


class Orchestrated:
    @pl.function(type=pl.FunctionType.InCore)
    def add_kernel(self, a: pl.Tensor[[64, N], pl.FP32], b: pl.Tensor[[64, N], pl.FP32],
                   out: pl.Out[pl.Tensor[[64, N], pl.FP32]]) -> pl.Tensor[[64, N], pl.FP32]:
        ta = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tb = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        out = pl.tile.store(pl.tile.add(ta, tb), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a: pl.Tensor[[64, N], pl.FP32], b: pl.Tensor[[64, N], pl.FP32],
             out: pl.InOut[pl.Tensor[[64, N], pl.FP32]]) -> pl.Tensor[[64, N], pl.FP32]:
        pl.func_attr({"entry": True, "stages": [1, 2]})
        r = self.add_kernel(a, b, out)
        return r


class ScalarArith:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        x = n + 1
        y = x * 2 - n // 3
        z = y % 7
        w = pl.min(z, x) + pl.max(y, 3)
        return w


class ScalarCompare:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.BOOL]:
        c = a < b
        d = a >= b and c
        e = not d or a == b
        f = 0 <= a < b
        return e


class ScalarDtypes:
    @pl.function
    def f(self, a: pl.Scalar[pl.INT64], x: pl.Scalar[pl.FP16]) -> pl.Scalar[pl.INT64]:
        b = a + 1
        c: pl.Scalar[pl.INT64] = 5
        d = b * c
        y = x * 2.0
        k = pl.cast(d, pl.INT32)
        return d


class ConstantsFold:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        a = n + TILE * 2
        b = a - HALF
        c = b + pl.const(3, pl.INT32)
        return b


class Rebinding:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        x = n + 1
        x = x * 2
        x = x + n
        x += 4
        return x


class LoopCarriedScalar:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc = 0
        for i in pl.range(n):
            acc = acc + i
        return acc


class LoopTwoCarried:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        a = 0
        b = 1
        for i in pl.range(0, n, 2):
            t = a + b
            a = b
            b = t
        return a + b


class ExplicitInitValues:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc0: pl.Scalar[pl.INDEX] = 0
        for k, (acc,) in pl.range(0, n, 1, init_values=(acc0,)):
            nxt = acc + k
            total = pl.yield_(nxt)
        return total


class ExplicitTwoValues:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (u, v) in pl.range(0, n, 1, init_values=(0, 1)):
            ru, rv = pl.yield_(v, u + v)
        return ru


class ParallelLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        for i in pl.parallel(0, 256, 64):
            t = pl.tile.load(a, [i, 0], [64, 64], target_memory=pl.Mem.Vec)
            out = pl.tile.store(pl.tile.exp(t), [i, 0], out)
        return out


class UnrollLoop:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        s = n
        for i in pl.unroll(0, 4, 1):
            s = s + i
        return s


class UnrollConstantBounds:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        s = n
        for i in pl.unroll(HALF // 8):
            s = s * 2
        return s


class PipelineLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        for i in pl.pipeline(0, 256, 64, stage=2):
            t = pl.tile.load(a, [i, 0], [64, 64], target_memory=pl.Mem.Vec)
            out = pl.tile.store(t, [i, 0], out)
        return out


class NestedLoops:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc = 0
        for i in pl.range(n):
            for j in pl.range(m):
                acc = acc + i * j
        return acc


class WhileExplicit:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for (x,) in pl.while_(init_values=(0,)):
            pl.cond(x < n)
            x_final = pl.yield_(x + 1)
        return x_final


class WhileTwoValues:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for (u, v) in pl.while_(init_values=(n, 1)):
            pl.cond(u < 10 and v > 0)
            ru, rv = pl.yield_(u + 1, v * 2)
        return rv


class PlainWhile:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        x = 1
        while x < n:
            x = x * 2
        return x


class IfAutoPhi:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        r = a
        if a < b:
            r = b
        else:
            r = a + 1
        return r


class IfOneArm:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        r = a
        if a > 10:
            r = 10
        return r


class IfExplicitYield:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        if a < b:
            r = pl.yield_(a)
        else:
            r = pl.yield_(b)
        return r


class IfElif:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        r = 0
        if a < 0:
            r = 1
        elif a < 10:
            r = 2
        else:
            r = 3
        return r


class IfInLoop:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        even = 0
        for i in pl.range(n):
            if i % 2 == 0:
                even = even + i
        return even


class BreakContinue:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i in pl.range(n):
            if i > 4:
                break
            else:
                continue
        return n


class BreakInWhile:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        while n > 0:
            if n == 3:
                break
        return n


class IfNoElse:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Scalar[pl.INDEX], out: pl.Tensor[[16], pl.INT32]):
        if a > 0:
            pl.system.bar_all()


class InCoreScope:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.add(a, b)
        return c


class InCoreScopeNamed:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale",
                   optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            c = pl.mul(a, 2.0)
        return c


class InCoreScopeDeps:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], tid: pl.Scalar[pl.TASK_ID]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid], allow_early_resolve=False):
            c = pl.exp(a)
        return c


class ScopeTaskIds:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="first") as first:
            b[:] = pl.exp(a)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[first]) as second:
            c[:] = pl.add(b, b)
        with pl.spmd(4, deps=[first, second, None]) as grid:
            with pl.at(level=pl.Level.CORE_GROUP):
                d = pl.mul(c, 2.0)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[grid]):
            e = pl.exp(d)
        return e


class ScopeTaskIdArrays:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        ids = pl.array.create(2, dtype=pl.TASK_ID)
        with pl.at(level=pl.Level.CORE_GROUP) as tid:
            b = pl.exp(a)
        ids[0] = tid
        with pl.at(level=pl.Level.CORE_GROUP, deps=[ids[0]]) as tid:
            c = pl.exp(b)
        ids[1] = tid
        with pl.at(level=pl.Level.CORE_GROUP, deps=[ids]):
            d = pl.add(b, c)
        return d


class ScopeTaskIdInLoop:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP) as tid:
            b = pl.exp(a)
        for i in pl.range(n):
            with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]) as tid:
                b = pl.exp(b)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]):
            c = pl.exp(b)
        return c


class HierarchyScope:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator, name_hint="host"):
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.exp(a)
        return c


class SpmdWith:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.spmd(n * 2, sync_start=True, name_hint="grid"):
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.exp(a)
        return c


class SpmdFor:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[512, 64], pl.FP32], out: pl.Out[pl.Tensor[[512, 64], pl.FP32]]) -> pl.Tensor[[512, 64], pl.FP32]:
        for blk in pl.spmd(8):
            t = pl.tile.load(a, [blk * 64, 0], [64, 64], target_memory=pl.Mem.Vec)
            out = pl.tile.store(t, [blk * 64, 0], out)
        return out


class ClusterScope:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.cluster(name_hint="c"):
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.exp(a)
        return c


class SliceAndAssemble:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        top = a[0:16, :]
        t = pl.exp(top)
        out[0:16, :] = t
        return out


class AssembleInLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(0, 64, 16):
            part = a[i:i + 16, :]
            out[i:i + 16, :] = pl.exp(part)
        return out


class WholeAssign:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out[:] = pl.exp(a)
        return out


class TileSlice:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        s = t[16:32, :]
        out = pl.store(s, [0, 0], out)
        return out


class CubeMatmul:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
           c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        la = pl.move(ta, target_memory=pl.Mem.Left)
        rb = pl.move(tb, target_memory=pl.Mem.Right)
        acc = pl.matmul(la, rb)
        c = pl.store(acc, [0, 0], c)
        return c


class TensorMatmul:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP32]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        return c


class RowReduce:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 1], pl.FP32]:
        s = pl.row_sum(a)
        return s


class TileRowReduce:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 1], pl.FP32]]) -> pl.Tensor[[64, 1], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tmp = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s = pl.row_sum(t, tmp)
        out = pl.store(s, [0, 0], out)
        return out


class CastOps:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP16]:
        h = pl.cast(a, pl.FP16)
        return h


class TensorCreateOrchestration:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        buf = pl.tensor.create([64, 64], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP):
            buf[:] = pl.exp(a)
        return buf


class TaskArray:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, t: pl.Scalar[pl.TASK_ID]) -> pl.Array[4, pl.TASK_ID]:
        ids = pl.array.create(4, dtype=pl.TASK_ID)
        ids[0] = t
        return ids


class MultipleReturns:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]]:
        return a + 1, a * 2

    @pl.function
    def g(self, a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        x, y = self.f(a)
        return x + y


class CallsBetweenFunctions:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        return pl.exp(a)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        b = self.k(a)
        c = self.k(b)
        return c


class InferredReturn:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32]):
        return pl.exp(a)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        return self.k(a)


class DynamicShapes:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
        return pl.add(a, b)


class AliasAnnotations:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: Row, b: Row) -> Row:
        return pl.maximum(a, b)


class ShapeFromConstants:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[TILE, HALF], F32]) -> pl.Tensor[[TILE, HALF], F32]:
        return pl.neg(a)


class LayoutAndView:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32, pl.TensorLayout.DN],
          b: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(stride=[128, 1], valid_shape=[60, 64], pad=pl.PadValue.zero)]):
        return


class TileParams:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec], u: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec]) -> pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec]:
        return pl.tile.add(t, u)


class TileViewType:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec, pl.TileView(valid_shape=[8, 16], pad=pl.PadValue.zero)]):
        return


class ScalarParamsInKernel:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[256, 64], pl.FP32], off: pl.Scalar[pl.INDEX],
          out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        t = pl.load(a, [off, 0], [64, 64], target_memory=pl.Mem.Vec)
        out = pl.store(t, [off + 64, 0], out)
        return out


class ScalarOpsOnTile:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        u = pl.mul(t, s)
        v = pl.sub(u, 1.0)
        w = pl.div(v, 3.0)
        out = pl.store(w, [0, 0], out)
        return out


class SystemOps:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]):
        pl.system.bar_all()
        pl.system.fence()
        return


class FunctionAttrs:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"note": "hot", "unroll": 4, "ratio": 0.5})
        return pl.exp(a)


class ExternalSource:
    @pl.function(type=pl.FunctionType.InCore, external_source="../kernels/fixtures/scale_add.cpp")
    def my_add(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...


class DocstringsAndPass:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX]):
        """Does nothing."""
        pass


class EmptyReturn:
    @pl.function
    def f(self):
        return


class WhileInLoop:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        total = 0
        for i in pl.range(n):
            j = i
            while j > 0:
                j = j // 2
                total = total + 1
        return total


class NestedIfs:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        r = 0
        if a > 0:
            if b > 0:
                r = a + b
            else:
                r = a - b
        return r


class LoopCarriedTile:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc = pl.tile.full([64, 64], 0.0, dtype=pl.FP32)
        for i in pl.range(0, 256, 64):
            t = pl.load(a, [i, 0], [64, 64], target_memory=pl.Mem.Vec)
            acc = pl.add(acc, t)
        out = pl.store(acc, [0, 0], out)
        return out


class ExplicitTileCarry:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        init = pl.tile.full([64, 64], 0.0, dtype=pl.FP32)
        for i, (acc,) in pl.range(0, 256, 64, init_values=(init,)):
            t = pl.load(a, [i, 0], [64, 64], target_memory=pl.Mem.Vec)
            nxt = pl.add(acc, t)
            res = pl.yield_(nxt)
        out = pl.store(res, [0, 0], out)
        return out


class Unary:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX], p: pl.Scalar[pl.BOOL]) -> pl.Scalar[pl.INDEX]:
        b = -a
        c = abs(b)
        d = ~c
        q = not p
        return d


class BitOps:
    @pl.function
    def f(self, a: pl.Scalar[pl.INT32], b: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
        c = a & b
        d = a | b
        e = a ^ b
        f = a << 2
        g = f >> 1
        return g


class FloatScalars:
    @pl.function
    def f(self, x: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.FP32]:
        y = x / 3.0
        z = y * 1e-05 + 100000.0
        w = z ** 2.0
        return w


class OpaqueWithRegion:
    @pl.function
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            b = pl.exp(a)
        return b


class AIVFunction:
    @pl.function(type=pl.FunctionType.AIV)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        r = pl.tile.relu(t)
        out = pl.store(r, [0, 0], out)
        return out


class TileExpands:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        m = pl.maximum(t, 0.0)
        out = pl.store(m, [0, 0], out)
        return out


class ReadElement:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.INT32]) -> pl.Scalar[pl.INT32]:
        x = pl.tensor.read(a, [3])
        return x


class LoopCarriedTensor:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.InOut[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        for i in pl.range(0, 256, 64):
            with pl.at(level=pl.Level.CORE_GROUP):
                part = a[i:i + 64, :]
                out[i:i + 64, :] = pl.exp(part)
        return out


class OrchestrationCallsInLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(n):
            out = self.k(a, out)
        return out


class PipelineCarried:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.pipeline(0, n, 1, init_values=(0,), stage=3):
            out = pl.yield_(acc + i)
        return out


class ParallelCarriedExplicit:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.parallel(0, n, 1, init_values=(0,)):
            out = pl.yield_(acc)
        return out


class BareYieldLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, n: pl.Scalar[pl.INDEX]):
        for i in pl.range(n):
            pl.system.bar_all()
        return


class ShiftAndRowExpand:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32], r: pl.Tensor[[64, 1], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        b = pl.row_expand_mul(a, r)
        return b


class Transposes:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
        return pl.transpose(a, 0, 1)


class ReshapeOp:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
        return pl.reshape(a, [32, 64])


class GroupFunction:
    @pl.function(type=pl.FunctionType.Group)
    def g(self, a: pl.Tensor[[64, 64], pl.FP32]):
        pl.system.bar_all()


class ScalarWhileWithTensors:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        b = a
        k = 0
        while k < n:
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.exp(b)
            k = k + 1
        return b


class SpmdKernelCall:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        return pl.exp(a)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.spmd(4):
            r = self.k(a)
        return r


@pl.inline
def double(x):
    y = pl.mul(x, 2.0)
    return y


class InlineHelper:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        b = double(a)
        c = double(b)
        return c


class CompareTensorsScalarCond:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], flag: pl.Scalar[pl.BOOL]) -> pl.Tensor[[64, 64], pl.FP32]:
        r = a
        if flag:
            with pl.at(level=pl.Level.CORE_GROUP):
                r = pl.exp(a)
        return r


class ModuloLoopBounds:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        s = 0
        for i in pl.range(1, n - 1, 2):
            s = s + (i + 1) * (i - 1)
        return s


class FloorDivLoop:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        s = 0
        for i in pl.range(n // 64):
            s = s + i * 64
        return s


class TensorFull:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.tensor.full([16, 16], 1.0, dtype=pl.FP32)
        return t


class ManyFunctions:
    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[16, 16], pl.FP16]):
        return

    @pl.function(type=pl.FunctionType.AIV)
    def vec(self, a: pl.Tensor[[16, 16], pl.FP16]):
        return

    @pl.function(type=pl.FunctionType.Spmd)
    def grid(self, a: pl.Tensor[[16, 16], pl.FP16]):
        return

    @pl.function(type=pl.FunctionType.Inline)
    def inl(self, a: pl.Tensor[[16, 16], pl.FP16]):
        return


class HostLevel:
    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def worker(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        return n + 1


PROGRAMS = [obj for name, obj in list(globals().items()) if isinstance(obj, type) and obj.__module__ == __name__]
