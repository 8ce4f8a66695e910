"""The ``.agreement`` accessor on DataArrays: one line per method, each delegating to the
public function of the same name."""

from __future__ import annotations

import xarray as xr

from . import judge as _judge
from . import mla as _mla


@xr.register_dataarray_accessor("agreement")
class AgreementAccessor:
    """Agreement statistics on a DataArray of annotations (``da.agreement.<method>``)."""

    def __init__(self, obj: xr.DataArray):
        self._obj = obj

    def mla(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.mla` on this DataArray."""
        return _mla.mla(self._obj, *args, **kwargs)

    def versus(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.versus` on this DataArray."""
        return _judge.versus(self._obj, *args, **kwargs)
