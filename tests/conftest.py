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
