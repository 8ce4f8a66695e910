"""Laziness checks shared by the dask tests."""

from contextlib import contextmanager

import dask


@contextmanager
def raise_if_dask_computes():
    """Any compute inside the block fails (as xarray's and flox's tests check laziness)."""

    def scheduler(dsk, keys, **kwargs):
        raise AssertionError("dask computed while the graph was being built")

    with dask.config.set(scheduler=scheduler):
        yield
