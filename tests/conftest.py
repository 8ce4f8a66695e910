"""Fixtures shared by the test modules."""

import pytest

from xr_agreement._core import jit

# the scripts that made the fixtures (some drive a local annotation server) are not tests
collect_ignore_glob = ["data/*"]


@pytest.fixture
def set_mode():
    """jit.set_mode, restored afterwards."""
    before = jit.mode()
    yield jit.set_mode
    jit.set_mode(before)


@pytest.fixture(params=["always", "never"])
def jit_mode(request):
    """Each test run with the kernels compiled, then interpreted (the mode's name)."""
    previous = jit.mode()
    jit.set_mode(request.param)
    yield request.param
    jit.set_mode(previous)
