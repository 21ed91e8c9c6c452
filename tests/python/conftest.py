import pytest

from pypto import ir


@pytest.fixture
def index():
    return ir.ScalarType(ir.DataType.INDEX)
