"""pypto.runtime.Tensor shares memory with torch and numpy: no copies, the same
strides, in-place writes visible on both sides, clear errors otherwise."""

import array

import numpy as np
import pytest
import torch

import pypto
from pypto import ir
from pypto.runtime import Tensor

DTYPES = [
    (torch.float32, ir.DataType.FP32),
    (torch.float16, ir.DataType.FP16),
    (torch.bfloat16, ir.DataType.BF16),
    (torch.float64, ir.DataType.FP64),
    (torch.int8, ir.DataType.INT8),
    (torch.int16, ir.DataType.INT16),
    (torch.int32, ir.DataType.INT32),
    (torch.int64, ir.DataType.INT64),
    (torch.uint8, ir.DataType.UINT8),
    (torch.bool, ir.DataType.BOOL),
]


@pytest.mark.parametrize("torch_dtype,dtype", DTYPES, ids=[str(d[1].name) for d in DTYPES])
def test_torch_tensor_is_wrapped_without_copy(torch_dtype, dtype):
    t = torch.zeros(3, 5, dtype=torch_dtype)
    wrapped = Tensor(t)
    assert wrapped.data_ptr == t.data_ptr()
    assert wrapped.dtype == dtype
    assert wrapped.shape == (3, 5)
    assert wrapped.strides == (5, 1)


def test_non_contiguous_torch_views_keep_their_strides():
    base = torch.arange(48, dtype=torch.float32).reshape(6, 8)
    column_block = base[1:5, 2:6]
    transposed = base.t()
    w = Tensor(column_block)
    assert w.data_ptr == column_block.data_ptr()
    assert w.strides == (8, 1)
    assert not w.is_contiguous
    t = Tensor(transposed)
    assert t.shape == (8, 6) and t.strides == (1, 8)


def test_round_trip_back_to_torch_and_numpy_shares_memory():
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    w = Tensor(t)
    back = torch.from_dlpack(w)
    assert back.data_ptr() == t.data_ptr()
    back[1, 2] = 100.0  # written through PyPTO's export, seen by the original
    assert t[1, 2].item() == 100.0
    arr = np.from_dlpack(w)
    assert arr.ctypes.data == t.data_ptr()
    assert arr[1, 2] == 100.0


def test_view_shares_storage_and_is_exported_with_offsets():
    t = torch.zeros(4, 6, dtype=torch.int32)
    window = Tensor(t).view([1, 2], [2, 3])
    assert window.data_ptr == t.data_ptr() + (1 * 6 + 2) * 4
    torch.from_dlpack(window).fill_(7)
    expected = torch.zeros(4, 6, dtype=torch.int32)
    expected[1:3, 2:5] = 7
    assert torch.equal(t, expected)


def test_numpy_arrays_are_wrapped_in_place():
    a = np.arange(20, dtype=np.float16).reshape(4, 5)[:, ::2]
    w = Tensor(a)
    assert w.data_ptr == a.ctypes.data
    assert w.dtype == ir.DataType.FP16
    assert w.strides == (5, 2)
    np.from_dlpack(w)[0, 0] = 9
    assert a[0, 0] == 9


def test_buffer_protocol_objects_are_wrapped_in_place():
    buf = array.array("i", [1, 2, 3, 4])
    w = Tensor(memoryview(buf))
    assert w.dtype == ir.DataType.INT32
    assert w.shape == (4,)
    torch.from_dlpack(w)[3] = 40
    assert buf[3] == 40


def test_read_only_memory_is_wrapped_and_marked_read_only():
    a = np.arange(6, dtype=np.float32)
    a.flags.writeable = False
    w = Tensor(a)
    assert w.read_only and w.data_ptr == a.ctypes.data
    assert not np.from_dlpack(w).flags.writeable
    assert w.view([2], [2]).read_only
    b = Tensor(b"\x01\x02\x03")
    assert b.read_only and b.dtype == ir.DataType.UINT8
    assert not Tensor(np.zeros(2)).read_only


def test_tensor_survives_the_source_object():
    t = torch.arange(6, dtype=torch.float32)
    ptr = t.data_ptr()
    w = Tensor(t)
    del t
    assert torch.from_dlpack(w).data_ptr() == ptr
    assert torch.from_dlpack(w)[5].item() == 5.0


def test_empty_is_aligned_and_zeroed():
    w = Tensor.empty([3, 7], ir.DataType.FP32)
    assert w.data_ptr % 64 == 0
    assert torch.equal(torch.from_dlpack(w), torch.zeros(3, 7))


def test_disjoint_views_do_not_overlap():
    w = Tensor(torch.zeros(8, 16))
    assert not w.view([0, 0], [8, 8]).may_overlap(w.view([0, 8], [8, 8]))
    assert w.view([0, 0], [8, 9]).may_overlap(w.view([0, 8], [8, 8]))


def test_unsupported_dtype_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match=r"DLPack dtype complex64 has no PyPTO equivalent"):
        Tensor(torch.zeros(2, dtype=torch.complex64))


def test_float8_is_a_value_error_listing_the_supported_dtypes():
    with pytest.raises(ValueError, match=r"has no PyPTO equivalent; supported: bool, int8"):
        Tensor(torch.zeros(2, dtype=torch.float8_e4m3fn))


def test_other_device_is_a_value_error_naming_it():
    class FakeCudaTensor:
        def __dlpack_device__(self):
            return (2, 1)

        def __dlpack__(self, *args, **kwargs):
            raise AssertionError("must not be exported")

    with pytest.raises(pypto.InvalidValueError, match=r"device 'cuda:1' cannot be passed to PyPTO.*t\.cpu\(\)"):
        Tensor(FakeCudaTensor())


def test_objects_without_memory_are_a_type_error():
    with pytest.raises(TypeError, match=r"expected a torch.Tensor, a numpy.ndarray .* got list"):
        Tensor([1, 2, 3])


def test_view_outside_is_a_value_error():
    w = Tensor(torch.zeros(4, 4))
    with pytest.raises(ValueError, match=r"leaves FP32\[4, 4\]"):
        w.view([3, 0], [2, 4])
