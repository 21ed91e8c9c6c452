"""Our versions of the user manual's example programs (execution-and-tooling spec §7),
written as users write them: `@pl.jit` kernels at tensor or tile level, with scopes,
loops, matmuls, reductions and task ids. The pipeline tests lower each one."""

import pypto.language as pl

F32 = pl.FP32
F16 = pl.FP16


# beginner/01 hello world: one 128x128 tile add.
@pl.jit
def hello_world(a: pl.Tensor[[128, 128], F32], b: pl.Tensor[[128, 128], F32],
                out: pl.Out[pl.Tensor[[128, 128], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [128, 128])
        tb = pl.load(b, [0, 0], [128, 128])
        pl.store(pl.add(ta, tb), [0, 0], out)
    return out


# beginner/02 elementwise: add then mul, chunked by rows in a pl.range loop.
@pl.jit
def elementwise_chunked(a: pl.Tensor[[512, 256], F32], b: pl.Tensor[[512, 256], F32],
                        out: pl.Out[pl.Tensor[[512, 256], F32]]):
    for r in pl.range(0, 512, 64):
        with pl.at(level=pl.Level.CORE_GROUP):
            ta = pl.load(a, [r, 0], [64, 256])
            tb = pl.load(b, [r, 0], [64, 256])
            pl.store(pl.mul(pl.add(ta, tb), tb), [r, 0], out)
    return out


# beginner/03 scalar ops: tile x scalar.
@pl.jit
def scalar_ops(a: pl.Tensor[[64, 128], F32], out: pl.Out[pl.Tensor[[64, 128], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [64, 128])
        y = pl.add(pl.mul(t, 3.0), 1.5)
        pl.store(pl.maximum(y, 0.0), [0, 0], out)
    return out


# beginner/04 activations: SiLU and SwiGLU from exp and reciprocal.
@pl.jit
def swiglu(gate: pl.Tensor[[32, 256], F32], up: pl.Tensor[[32, 256], F32],
           out: pl.Out[pl.Tensor[[32, 256], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        g = pl.load(gate, [0, 0], [32, 256])
        u = pl.load(up, [0, 0], [32, 256])
        sigmoid = pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0))
        pl.store(pl.mul(pl.mul(g, sigmoid), u), [0, 0], out)
    return out


# beginner/05 matmul: GM -> Mat -> Left/Right -> matmul -> Acc -> GM.
@pl.jit
def matmul(a: pl.Tensor[[64, 128], F16], b: pl.Tensor[[128, 64], F16],
           out: pl.Out[pl.Tensor[[64, 64], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        c = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
        pl.store(c, [0, 0], out)
    return out


# beginner/06 concat: two tiles side by side.
@pl.jit
def concat(a: pl.Tensor[[32, 64], F32], b: pl.Tensor[[32, 64], F32],
           out: pl.Out[pl.Tensor[[32, 128], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [32, 64])
        tb = pl.load(b, [0, 0], [32, 64])
        pl.store(pl.concat(ta, tb), [0, 0], out)
    return out


# intermediate/01 fused linear: a matmul kernel and a bias + relu kernel joined by a tensor.
@pl.jit
def fused_linear(x: pl.Tensor[[64, 128], F16], w: pl.Tensor[[128, 64], F16], bias: pl.Tensor[[1, 64], F32],
                 out: pl.Out[pl.Tensor[[64, 64], F32]]):
    h = pl.create_tensor([64, 64], F32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="linear"):
        tx = pl.load(x, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        tw = pl.load(w, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        pl.store(pl.matmul(tx, tw), [0, 0], h)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="bias_relu"):
        th = pl.load(h, [0, 0], [64, 64])
        tb = pl.load(bias, [0, 0], [1, 64])
        pl.store(pl.relu(pl.col_expand_add(th, tb)), [0, 0], out)
    return out


# intermediate/02 softmax, one row block at a time.
@pl.jit
def softmax(x: pl.Tensor[[256, 128], F32], out: pl.Out[pl.Tensor[[256, 128], F32]]):
    for r in pl.range(0, 256, 32):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [r, 0], [32, 128])
            work = pl.create_tile([32, 128], dtype=F32, target_memory=pl.Mem.Vec)
            m: pl.Tile[[32, 1], F32] = pl.row_max(t, work)
            e = pl.exp(pl.row_expand_sub(t, m))
            s: pl.Tile[[32, 1], F32] = pl.row_sum(e, work)
            pl.store(pl.row_expand_div(e, s), [r, 0], out)
    return out


# intermediate/03 normalization: RMSNorm with a weight row.
@pl.jit
def rms_norm(x: pl.Tensor[[32, 256], F32], gamma: pl.Tensor[[1, 256], F32],
             out: pl.Out[pl.Tensor[[32, 256], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [32, 256])
        g = pl.load(gamma, [0, 0], [1, 256])
        work = pl.create_tile([32, 256], dtype=F32, target_memory=pl.Mem.Vec)
        ss: pl.Tile[[32, 1], F32] = pl.row_sum(pl.mul(t, t), work)
        rms = pl.sqrt(pl.add(pl.mul(ss, 1.0 / 256), 1e-6))
        pl.store(pl.col_expand_mul(pl.row_expand_div(t, rms), g), [0, 0], out)
    return out


# intermediate/04 matmul_acc: K split into steps accumulated in Acc.
@pl.jit
def matmul_acc(a: pl.Tensor[[64, 256], F16], b: pl.Tensor[[256, 64], F16],
               out: pl.Out[pl.Tensor[[64, 64], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        acc = pl.matmul(ta, tb)
        for k in pl.range(64, 256, 64):
            ta_k = pl.load(a, [0, k], [64, 64], target_memory=pl.Mem.Mat)
            tb_k = pl.load(b, [k, 0], [64, 64], target_memory=pl.Mem.Mat)
            acc = pl.matmul_acc(acc, ta_k, tb_k)
        pl.store(acc, [0, 0], out)
    return out


# intermediate/05 assemble: tiles written into slices of one result.
@pl.jit
def assemble(a: pl.Tensor[[64, 128], F32], out: pl.Out[pl.Tensor[[64, 128], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        left = pl.load(a, [0, 0], [64, 64])
        right = pl.load(a, [0, 64], [64, 64])
        pl.store(pl.exp(left), [0, 0], out)
        pl.store(pl.mul(right, 2.0), [0, 64], out)
    return out


# intermediate/06 dynamic valid shape: a partial last tile padded before the reduction.
@pl.jit
def dyn_valid_shape(x: pl.Tensor[[64, 128], F32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 1], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [64, 128], valid_shape=[64, n])
        padded = pl.fillpad(t, pad_value=pl.PadValue.zero)
        work = pl.create_tile([64, 128], dtype=F32, target_memory=pl.Mem.Vec)
        s: pl.Tile[[64, 1], F32] = pl.row_sum(padded, work)
        pl.store(s, [0, 0], out)
    return out


# intermediate/07 task graph: one declared edge on top of the inferred ones.
@pl.jit
def task_graph(x: pl.Tensor[[64, 64], F32], y: pl.Out[pl.Tensor[[64, 64], F32]]):
    stage = pl.create_tensor([64, 64], F32)
    with pl.at(level=pl.Level.CORE_GROUP) as first:
        stage[:] = pl.exp(x)
    with pl.at(level=pl.Level.CORE_GROUP, deps=[first]):
        y[:] = pl.add(stage, x)
    return y


# advanced/02 tensor-level chain too big for Vec: the compiler tiles it.
@pl.jit
def big_chain(a: pl.Tensor[[2048, 2048], F32], b: pl.Tensor[[2048, 2048], F32],
              out: pl.Out[pl.Tensor[[2048, 2048], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(pl.add(a, b))
    return out


# models/02 vector DAG: five tasks, two independent branches joined at the end.
@pl.jit
def vector_dag(a: pl.Tensor[[64, 64], F32], b: pl.Tensor[[64, 64], F32], out: pl.Out[pl.Tensor[[64, 64], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale_a"):
        sa = pl.mul(a, 2.0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="exp_b"):
        eb = pl.exp(b)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="sum"):
        s = pl.add(sa, eb)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="square"):
        q = pl.mul(s, s)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="join"):
        out[:] = pl.sub(q, sa)
    return out


# models/03 flash-attention style loop-carried state: running max and sum over key blocks.
@pl.jit
def online_softmax_rows(s: pl.Tensor[[32, 512], F32], out: pl.Out[pl.Tensor[[32, 1], F32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        work = pl.create_tile([32, 128], dtype=F32, target_memory=pl.Mem.Vec)
        first = pl.load(s, [0, 0], [32, 128])
        m: pl.Tile[[32, 1], F32] = pl.row_max(first, work)
        l: pl.Tile[[32, 1], F32] = pl.row_sum(pl.exp(pl.row_expand_sub(first, m)), work)
        for k in pl.range(128, 512, 128):
            blk = pl.load(s, [0, k], [32, 128])
            bm: pl.Tile[[32, 1], F32] = pl.row_max(blk, work)
            m_new = pl.maximum(m, bm)
            bl: pl.Tile[[32, 1], F32] = pl.row_sum(pl.exp(pl.row_expand_sub(blk, m_new)), work)
            l = pl.add(pl.mul(l, pl.exp(pl.sub(m, m_new))), bl)
            m = m_new
        pl.store(pl.add(m, pl.log(l)), [0, 0], out)
    return out


# Scalar arguments the examples are specialized with.
SCALARS = {"dyn_valid_shape": {"n": 100}}

PROGRAMS = [hello_world, elementwise_chunked, scalar_ops, swiglu, matmul, concat, fused_linear, softmax,
            rms_norm, matmul_acc, assemble, dyn_valid_shape, task_graph, big_chain, vector_dag,
            online_softmax_rows]
