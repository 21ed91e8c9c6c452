"""A tour of PyPTO's foundation: build a program from Python, print it as the
DSL, run the default pass pipeline (every pass a plugin), lower a tensor-level
@pl.jit kernel to tiled, memory-planned tile code, and list the plugins.

Run it with `make run`, or `.venv/bin/python examples/foundation_tour.py`.
"""

import tempfile
from pathlib import Path

import pypto.language as pl
from pypto import ir, ops, passes, plugins
from pypto.runtime import RunConfig

DT = ir.DataType
FP32 = ir.ScalarType(DT.FP32)
INDEX = ir.ScalarType(DT.INDEX)


def build_scale_exp() -> ir.Function:
    """out = exp(a) * (0.5 summed four times), written with tile ops.

    The sum is a `pl.unroll` loop carrying `acc`; UnrollLoops expands it and
    Simplify folds the four additions into one constant. `waste` is never
    used, so Simplify removes it.
    """
    tensor = ir.TensorType([64, 64], DT.FP32)
    a, out = ir.Var("a", tensor), ir.Var("out", tensor)

    k = ir.Var("k", INDEX)
    acc = ir.IterArg("acc", FP32, ir.ConstFloat(0.0))
    nxt, factor = ir.Var("nxt", FP32), ir.Var("factor", FP32)
    unrolled_sum = ir.ForStmt(
        k, 0, 4, 1, [acc],
        ir.SeqStmts([ir.AssignStmt(nxt, ir.BinaryExpr(ir.BinaryOp.Add, acc, 0.5)), ir.YieldStmt([nxt])]),
        [factor], ir.ForKind.Unroll)

    def let(name, value):
        var = ir.Var(name, value.type)
        return var, ir.AssignStmt(var, value)

    t, load = let("t", ops.create("tile.load", [a, ir.MakeTuple([0, 0]), ir.MakeTuple([64, 64])],
                                  {"target_memory": ir.MemorySpace.Vec}))
    e, exp = let("e", ops.create("tile.exp", [t]))
    s, scale = let("s", ops.create("tile.muls", [e, factor]))
    _, waste = let("waste", ir.BinaryExpr(ir.BinaryOp.Mul, 3, 4))
    o, store = let("o", ops.create("tile.store", [s, ir.MakeTuple([0, 0]), out]))
    body = ir.SeqStmts([load, unrolled_sum, exp, scale, waste, store, ir.ReturnStmt([o])])
    return ir.Function("scale_exp", ir.FunctionType.InCore, [a, out],
                       [ir.ParamDirection.In, ir.ParamDirection.Out], [tensor], body)


@pl.jit
def big_exp_add(a: pl.Tensor[[2048, 2048], pl.FP32], b: pl.Tensor[[2048, 2048], pl.FP32],
                out: pl.Out[pl.Tensor[[2048, 2048], pl.FP32]]):
    """out = exp(a + b), written at tensor level: the compiler picks the tiles."""
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(pl.add(a, b))
    return out


def main() -> None:
    program = ir.Program("tour", [build_scale_exp()])
    print("== The program, printed as the Python DSL\n")
    print(ir.as_python(program))

    problems = ir.verify(program)
    print(f"== Verifier: {len(problems)} problem(s)\n")

    manager = passes.PassManager("default")
    timing = passes.TimingInstrument()
    with tempfile.TemporaryDirectory() as dump_dir:
        lowered = manager.run(program, dump_dir=dump_dir, instruments=[timing])
        dumps = sorted(p.name for p in (Path(dump_dir) / "passes_dump").iterdir())
    print(f"== After the default pipeline ({' -> '.join(manager.pass_names)})\n")
    print(ir.as_python(lowered))
    print("Dumped after every pass: " + ", ".join(dumps) + "\n")
    print(timing.report())

    print("== A tensor-level kernel through the default pipeline\n")
    lowered = big_exp_add.lower(config=RunConfig(pipeline="default", platform="a2a3sim"))
    print(ir.as_python(lowered.get_function("big_exp_add_incore_0")))
    print("The 2048x2048 FP32 chain does not fit in Vec (184 KiB), so ConvertTensorToTileOps tiled it\n"
          "into a loop over row blocks; the MemRefs show where each tile lives.\n")

    print("== Plugins\n")
    records = plugins.discover()
    width = max(len(r["name"]) for r in records)
    for record in records:
        print(f"{record['name']:<{width}}  {record['kind']:<8} {record['version']:<8} {record['path']}")


if __name__ == "__main__":
    main()
