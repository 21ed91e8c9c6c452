# pypto.program: directions
import pypto.language as pl

@pl.program
class directions:
    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, src: pl.Tensor[[64, 64], pl.FP32], dst: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(src)
        dst_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(dst, t, [0, 0])
        return dst

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        b_1_first: pl.Tuple[pl.Tensor[[64, 64], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.copy, a, b, attrs={"arg_directions": ["Input", "OutputExisting"]})
        b_1: pl.Tensor[[64, 64], pl.FP32] = b_1_first[0]
        first: pl.Scalar[pl.TASK_ID] = b_1_first[1]
        b_2_second: pl.Tuple[pl.Tensor[[64, 64], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.copy, c, b_1, deps=[first], attrs={"arg_directions": ["Input", "InOut"]})
        b_2: pl.Tensor[[64, 64], pl.FP32] = b_2_second[0]
        second: pl.Scalar[pl.TASK_ID] = b_2_second[1]
        c_1_third: pl.Tuple[pl.Tensor[[64, 64], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.copy, b_2, c, core_num=4, deps=[second], attrs={"no_dep_args": [b_2], "arg_directions": ["NoDep", "OutputExisting"]})
        c_1: pl.Tensor[[64, 64], pl.FP32] = c_1_third[0]
        third: pl.Scalar[pl.TASK_ID] = c_1_third[1]
        return c_1
