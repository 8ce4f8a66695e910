"""The ``.agreement`` accessor on DataArrays: one line per method, each delegating to the
public function of the same name."""

from __future__ import annotations

import xarray as xr

from . import alpha as _alpha
from . import compare as _compare
from . import judge as _judge
from . import kappa as _kappa
from . import mla as _mla
from . import report as _report


@xr.register_dataarray_accessor("agreement")
class AgreementAccessor:
    """Agreement statistics on a DataArray of annotations (``da.agreement.<method>``)."""

    def __init__(self, obj: xr.DataArray):
        self._obj = obj

    def mla(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.mla` on this DataArray."""
        return _mla.mla(self._obj, *args, **kwargs)

    def alpha(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.alpha` on this DataArray."""
        return _alpha.alpha(self._obj, *args, **kwargs)

    def versus(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.versus` on this DataArray."""
        return _judge.versus(self._obj, *args, **kwargs)

    def cohen(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.cohen` on this DataArray."""
        return _kappa.cohen(self._obj, *args, **kwargs)

    def fleiss(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.fleiss` on this DataArray."""
        return _kappa.fleiss(self._obj, *args, **kwargs)

    def conger(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.conger` on this DataArray."""
        return _kappa.conger(self._obj, *args, **kwargs)

    def gwet(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.gwet` on this DataArray."""
        return _kappa.gwet(self._obj, *args, **kwargs)

    def brennan_prediger(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.brennan_prediger` on this DataArray."""
        return _kappa.brennan_prediger(self._obj, *args, **kwargs)

    def percent(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.percent` on this DataArray."""
        return _kappa.percent(self._obj, *args, **kwargs)

    def one_hot(self, *args, **kwargs) -> xr.DataArray:
        """Call :func:`xr_agreement.one_hot` on this DataArray."""
        return _kappa.one_hot(self._obj, *args, **kwargs)

    def report(self, *args, **kwargs):
        """Call :func:`xr_agreement.report` on this DataArray."""
        return _report.report(self._obj, *args, **kwargs)

    def judge_report(self, *args, **kwargs):
        """Call :func:`xr_agreement.judge_report` on this DataArray."""
        return _report.judge_report(self._obj, *args, **kwargs)

    def augmented_kappa(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.augmented_kappa` on this DataArray."""
        return _compare.augmented_kappa(self._obj, *args, **kwargs)

    def boot_f1(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.boot_f1` on this DataArray."""
        return _compare.boot_f1(self._obj, *args, **kwargs)

    def masi(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.masi` on this DataArray."""
        return _compare.masi(self._obj, *args, **kwargs)

    def am(self, *args, **kwargs) -> xr.Dataset:
        """Call :func:`xr_agreement.am` on this DataArray."""
        return _compare.am(self._obj, *args, **kwargs)
