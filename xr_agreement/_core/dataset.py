"""Result Datasets built in one step, with the input's coordinates and indexes as they are.

xarray's public constructor aligns and merges every variable and builds a fresh index for
every dimension coordinate. Our result variables are made by the family itself, with dims
that already agree, and the coordinates come from the input with their indexes: there is
nothing to align. Going through the merge anyway cost most of a small call and, on a corpus
with a million string item ids, rebuilt a pandas index of a million strings on every call.

:func:`dataset` therefore builds the Dataset with ``xarray.Dataset._construct_direct``, the
constructor xarray's own methods use on variables they already trust. It is private API, so it
lives in this one place, falls back to the public constructor if it ever goes away, and
``tests/test_core.py`` checks that both give identical Datasets. Measured at (1000, 5, 50)
with string coordinates: 660 us -> 75 us for MLA's 21 variables (benchmarks/bench_mla.py
gives the whole call). It is given the dims' sizes, which :func:`dataset` gathers (and
checks) with :func:`_sizes`, a plain loop: xarray's own gathering, for any kind of variable,
took 23 of its 40 us.

:func:`variable` fills the four slots of an ``xarray.Variable`` directly, as its fast path
does after checking nothing the family has not made sure of already: 22 variables cost
12 us instead of 39 us through ``Variable(..., fastpath=True)``. It does so only while the
class has exactly those slots (checked once); otherwise it takes the public constructor.

Reasons (``undefined_reason``, ``label_undefined_reason``, ...: :func:`is_reason`) are
coordinates of every result, not data variables, so that the data variables are numbers
(``result * 2``, ``result.mean()``) and each value carries the text on its dims.
:func:`dataset` makes them so by name, in the set of coordinate names it gives xarray;
results built otherwise go through :func:`reasons_as_coordinates`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import xarray as xr


class InputCoordinates(NamedTuple):
    """Coordinates of an input as :func:`dataset` takes them: the variables and their
    indexes (an ``xarray.Coordinates`` of them costs some 70 us to build and check)."""

    variables: dict
    xindexes: dict


def input_coordinates(da: xr.DataArray, dims: Iterable[str]) -> InputCoordinates:
    """The coordinates of ``da`` that live on ``dims`` only (index and non-index alike), with
    their existing indexes: nothing is copied or rebuilt."""
    dims = set(dims)
    # the DataArray's own dicts where it has them: the public views (Frozen mappings read
    # through collections.abc, an Indexes object) took 14 us where these take 4 at three coordinates
    all_variables = getattr(da, "_coords", None)
    all_indexes = getattr(da, "_indexes", None)
    if not (isinstance(all_variables, dict) and isinstance(all_indexes, dict)):
        all_variables, all_indexes = da.coords.variables, da.xindexes  # pragma: no cover
    variables = {name: variable for name, variable in all_variables.items()
                 if set(variable.dims) <= dims}
    indexes = {name: index for name, index in all_indexes.items() if name in variables}
    return InputCoordinates(variables, indexes)


def dimension_coordinates(values: Mapping[str, np.ndarray]) -> InputCoordinates:
    """Dimension coordinates of values a family found itself (the categories of the ratings,
    say), each with its pandas index, as ``xarray.Coordinates(values)`` makes them, for
    :func:`dataset`. Built with xarray's public ``PandasIndex`` directly: the public
    constructor checks and merges its input as any user's (0.3-0.6 ms for two coordinates
    of five values, most of a small alpha call). ``values`` maps each dim to a 1-D array."""
    from xarray.indexes import PandasIndex

    key = _small_key(values)
    if key is not None:  # a family's few categories: made once (_small_coordinates)
        variables, indexes = _small_coordinates(key)
        return InputCoordinates(_own_variables(variables), dict(indexes))
    variables, indexes = {}, {}
    made = {}  # the same values for two dims (alpha's category, paired_category): one index
    for dim, data in values.items():
        if id(data) in made:
            first = made[id(data)]
            index = PandasIndex(first.index.rename(dim), dim, coord_dtype=first.coord_dtype)
            _add_index(variables, indexes, index, index.create_variables())
            continue
        original = data
        data = np.asarray(data)
        if data.ndim != 1:
            raise ValueError(f"values of dimension coordinate {dim!r} must be 1-D, got shape "
                             f"{data.shape}")
        if data.dtype == object:
            # as xarray converts them: Timestamps, datetimes and timedeltas become
            # datetime64 / timedelta64 (with their own pandas index)
            data = xr.Variable((dim,), data).values
        index = PandasIndex(data, dim, coord_dtype=data.dtype)
        made[id(original)] = index
        _add_index(variables, indexes, index, index.create_variables())
    return InputCoordinates(variables, indexes)


def renamed_coordinates(da: xr.DataArray, dim: str, names: Iterable[str]) -> InputCoordinates:
    """The index of ``da``'s dimension coordinate ``dim`` under each of ``names`` as
    dimension coordinates of their own (Cohen's ``annotator_1`` and ``annotator_2`` of the
    input's ``annotator``), for :func:`dataset`; empty unless ``dim`` has a plain pandas
    index. That index is reused as it is (renamed, not rebuilt: rebuilding an index of
    strings took 0.1 ms a dim), and the renamed indexes are kept for the next call on the
    same index (:data:`_RENAMED`)."""
    from xarray.indexes import PandasIndex

    index = da.xindexes.get(dim) if dim in da.dims else None
    variables, indexes = {}, {}
    if type(index) is not PandasIndex:  # none, or a multi-index (its levels keep their names)
        return InputCoordinates(variables, indexes)
    for name in names:
        key = (id(index), dim, name)
        kept = _RENAMED.get(key)
        if kept is None or kept[0] is not index:
            renamed = index.rename({dim: name}, {dim: name})
            kept = (index, renamed, renamed.create_variables())
            with _RENAMED_LOCK:  # threads share it: unlocked, an eviction raced another's
                if len(_RENAMED) >= RENAMED_KEPT:
                    _RENAMED.pop(next(iter(_RENAMED), None), None)  # the oldest
                _RENAMED[key] = kept
        _add_index(variables, indexes, kept[1], _own_variables(kept[2]))
    return InputCoordinates(variables, indexes)


# The renamed indexes of :func:`renamed_coordinates`, by the id of the input's index (the
# entry holds that index, so its id is not reused while the entry lives), oldest first.
_RENAMED: dict = {}

_RENAMED_LOCK = threading.Lock()

RENAMED_KEPT = 32


def _own_variables(made: Mapping[str, xr.Variable]) -> dict:
    """Shallow copies of index variables that several results share (data and index are
    immutable, a Variable's attrs are not: editing one result's must not reach the next).
    Through the slots, as :func:`variable` fills them: ``copy(deep=False)`` took 3.5 us
    a coordinate, a tenth of a small alpha call."""
    if not _DIRECT_INDEX_VARIABLES or any(type(v) is not xr.IndexVariable
                                          for v in made.values()):
        return {name: coordinate.copy(deep=False) for name, coordinate in made.items()}
    copies = {}
    for name, coordinate in made.items():
        copy = xr.IndexVariable.__new__(xr.IndexVariable)
        copy._dims = coordinate._dims
        copy._data = coordinate._data
        copy._attrs = dict(coordinate._attrs) if coordinate._attrs else None
        copy._encoding = dict(coordinate._encoding) if coordinate._encoding else None
        copies[name] = copy
    return copies


def _add_index(variables: dict, indexes: dict, index, made: Mapping[str, xr.Variable]):
    for name, coordinate in made.items():
        variables[name] = coordinate
        indexes[name] = index


# The instance slots of xarray.Variable that :func:`variable` fills (Variable's own and its
# base NamedArray's): the direct construction is used only while these are all there are.
_VARIABLE_SLOTS = frozenset({"_attrs", "_data", "_dims", "_encoding"})


def _slots_are_known() -> bool:
    slots = set()
    for cls in xr.Variable.__mro__[:-1]:  # all but object
        if "__slots__" not in vars(cls):  # a class without __slots__ adds a __dict__
            return False
        own = vars(cls)["__slots__"]
        slots.update((own,) if isinstance(own, str) else own)
    return slots == _VARIABLE_SLOTS


_DIRECT_VARIABLES = _slots_are_known()

# IndexVariable adds no slot of its own (checked once): copies through the slots are whole
_DIRECT_INDEX_VARIABLES = (_DIRECT_VARIABLES
                           and vars(xr.IndexVariable).get("__slots__", None) == ())


def variable(dims, data, attrs=None) -> xr.Variable:
    """An ``xarray.Variable`` of a numpy or dask array the family just computed, without
    xarray's input conversion (which inspects the data for every kind of input it accepts:
    0.02 ms a variable, half of MLA's finishing at (1000, 5, 50)). ``attrs`` is copied."""
    if type(data) is not np.ndarray and (isinstance(data, np.generic)
                                         or not hasattr(data, "ndim")):
        data = np.asarray(data)
    if type(dims) is not tuple:
        dims = (dims,) if isinstance(dims, str) else tuple(dims)
    if len(dims) != data.ndim:
        raise ValueError(f"dims {dims} do not match the {data.ndim} axes of the data")
    if not _DIRECT_VARIABLES:  # pragma: no cover - a changed xarray: the public path
        return xr.Variable(dims, data, attrs, fastpath=True)
    result = xr.Variable.__new__(xr.Variable)
    result._dims = dims
    result._data = data
    result._attrs = dict(attrs) if attrs else None
    result._encoding = None
    return result


def dataset(variables: Mapping[str, xr.Variable],
            coords: xr.Coordinates | InputCoordinates | list | None = None,
            attrs: dict | None = None, *, new_coords: Mapping | None = None,
            variables_first: bool = False,
            coords_after: InputCoordinates | None = None) -> xr.Dataset:
    """A Dataset of ``variables`` (``xarray.Variable`` with consistent dims) on ``coords``.

    ``coords`` may be a list of such sources; no two may share a name.
    ``new_coords`` are dimension coordinates the result adds (e.g. ``{"baseline": [...]}``);
    they get a default index. Sizes that disagree raise xarray's own error. The Dataset's
    dims (what ``sizes`` lists and ``to_dataframe`` follows, also after ``assign``) come in
    order of first appearance, in the coordinates first unless ``variables_first``, as
    ``xarray.Dataset(variables).assign_coords(coords)`` would give. ``coords_after`` (from
    :func:`dimension_coordinates`) come after the variables in either case, as they would
    if assigned to the result.
    """
    sources = (coords if isinstance(coords, list) else [coords]) + [
        _dimension_coordinate(dim, tuple(values)) for dim, values in (new_coords or {}).items()]
    coordinate_variables, indexes = {}, {}
    for source in sources:
        if source is not None:
            _check_names(coordinate_variables, source.variables)
            coordinate_variables.update(source.variables)
            indexes.update(source.xindexes)
    _check_names(coordinate_variables, variables)
    trailing = {}
    if coords_after is not None:
        _check_names(coordinate_variables, coords_after.variables)
        _check_names(variables, coords_after.variables)
        trailing = dict(coords_after.variables)
        indexes.update(coords_after.xindexes)
    for dim in new_coords or ():
        # the cached coordinate's data and index are shared, its Variable (attrs) is not:
        # editing one result's attrs must not reach the next result
        coordinate_variables[dim] = coordinate_variables[dim].copy(deep=False)
    construct = getattr(xr.Dataset, "_construct_direct", None)
    if construct is None:  # pragma: no cover - the public path, if xarray drops the private one
        return _public_dataset(variables, coordinate_variables, trailing, indexes, attrs)
    all_variables = ({**variables, **coordinate_variables} if variables_first
                     else {**coordinate_variables, **variables})
    all_variables.update(trailing)
    coordinate_names = set(coordinate_variables)
    coordinate_names.update(trailing)
    coordinate_names.update(_reasons_among(tuple(variables)))
    try:
        return construct(all_variables, coordinate_names,
                         _sizes(all_variables), attrs=dict(attrs or {}), indexes=indexes)
    except TypeError:  # pragma: no cover - a changed private signature: the public path
        return _public_dataset(variables, coordinate_variables, trailing, indexes, attrs)


def _public_dataset(variables, coordinate_variables, trailing, indexes, attrs) -> xr.Dataset:
    """:func:`dataset` through xarray's public constructors."""
    result = xr.Dataset(dict(variables), attrs=attrs, coords=xr.Coordinates(
        coordinate_variables, indexes={k: v for k, v in indexes.items()
                                       if k in coordinate_variables}))
    if trailing:
        result = result.assign_coords(xr.Coordinates(
            trailing, indexes={k: v for k, v in indexes.items() if k in trailing}))
    return reasons_as_coordinates(result)


def is_reason(name) -> bool:
    """Whether a result variable of this name is text saying why a value is NaN
    (``undefined_reason``, ``label_undefined_reason``, ...): such text is a coordinate of
    the result, not a data variable (:func:`reasons_as_coordinates`)."""
    return isinstance(name, str) and name.endswith("_reason")


@lru_cache(maxsize=256)
def _reasons_among(names: tuple) -> tuple:
    """The reasons among a result's variable names, found once per set of names (a family
    gives few): testing each name cost 2-3 us of a small call, the cache 0.7 us."""
    return tuple(name for name in names if is_reason(name))


def reasons_as_coordinates(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` with its reasons (:func:`is_reason`) as non-index coordinates, for results not
    built by :func:`dataset` (which makes them coordinates itself); ``ds`` itself if none is
    a data variable.

    Why coordinates: a data variable of text makes ``result * 2`` raise and ``result.mean()``
    fail, and some stores refuse it; as a coordinate on the dims of the value it describes,
    the text stays readable as ``result.label_undefined_reason`` and goes along with that
    value (``result.label_agreement`` carries it), while the data variables are numbers.
    ``set_coords`` keeps the data as it is (a dask array stays lazy)."""
    names = [name for name in ds.data_vars if is_reason(name)]
    return ds.set_coords(names) if names else ds


def without_reasons(values):
    """``values`` (a Dataset or DataArray of one family's result) without the reason
    coordinates it carries, for values that go into another family's result (``versus``'s
    ``human_agreement`` is ``mla``'s ``agreement``): there the text would read as the
    reason of that result's own values."""
    names = [name for name in values.coords if is_reason(name)]
    return values.drop_vars(names) if names else values


def _sizes(variables: Mapping[str, xr.Variable]) -> dict:
    """The dims' sizes in order of first appearance; sizes that disagree are refused."""
    sizes = {}
    direct = (xr.Variable, xr.IndexVariable) if _DIRECT_VARIABLES else ()
    for name, var in variables.items():
        # the slots where variable() filled them (the properties took 6 us a small call)
        if type(var) in direct:
            dims = var._dims
            if not dims:  # a scalar: no size
                continue
            shape = var._data.shape
        else:
            dims, shape = var.dims, var.shape
        for dim, size in zip(dims, shape):
            if sizes.setdefault(dim, size) != size:
                raise ValueError(f"conflicting sizes for dimension {dim!r}: length {size} on "
                                 f"{name!r} and length {sizes[dim]} before it")
    return sizes


def _check_names(coordinates: Mapping, added: Mapping) -> None:
    """Refuse a result name already taken by a coordinate of the input: one would replace
    the other without a word (a scalar coordinate ``coefficient`` became the coefficient)."""
    if coordinates.keys().isdisjoint(added):  # the usual case, without building sets
        return
    clash = sorted(set(coordinates) & set(added))
    if clash:
        raise ValueError(
            f"the input has coordinate(s) {clash} with the name of a result variable or "
            f"dim; rename or drop them first (e.g. da.drop_vars({clash!r}))")


# Dimension coordinates of at most this many numbers or strings are made once per values.
SMALL_INDEX = 64


def _small_key(values: Mapping[str, np.ndarray]) -> tuple | None:
    """(dim, dtype, bytes) of each of ``values`` if all are 1-D arrays of at most
    :data:`SMALL_INDEX` numbers or strings (hashable: the key of :func:`_small_coordinates`),
    else None."""
    key = []
    for dim, data in values.items():
        if (type(data) is not np.ndarray or data.ndim != 1 or data.size > SMALL_INDEX
                or data.dtype.kind not in "biufU"):
            return None
        key.append((dim, data.dtype.str, data.tobytes()))
    return tuple(key)


@lru_cache(maxsize=256)
def _small_coordinates(key: tuple) -> tuple[dict, dict]:
    """The variables and indexes of the dimension coordinates of :func:`_small_key`'s
    ``key``: some 50 us a dim to build, a tenth of a small alpha or kappa call. Indexes are
    immutable, so results share them, as :func:`_dimension_coordinate`'s (the variables as
    shallow copies, :func:`_own_variables`)."""
    from xarray.indexes import PandasIndex

    variables, indexes = {}, {}
    for dim, dtype, data in key:
        values = np.frombuffer(data, dtype=np.dtype(dtype)).copy()
        index = PandasIndex(values, dim, coord_dtype=values.dtype)
        _add_index(variables, indexes, index, index.create_variables())
    return variables, indexes


@lru_cache(maxsize=64)
def _dimension_coordinate(dim: str, values: tuple) -> InputCoordinates:
    """A small dimension coordinate with its index (:func:`dimension_coordinates`), made once
    per (dim, values): building a pandas index of three strings takes 0.2 ms under pandas'
    string inference. Index variables are immutable, so results may share them."""
    return dimension_coordinates({dim: np.asarray(values)})


class Layout:
    """The structure of a result Dataset, taken from one :func:`dataset` built, to build
    others like it with new data: the same variables in the same order, with the same dims
    and attrs, on the same coordinates and indexes.

    A family's small calls give results of one structure again and again (alpha's at 50
    items: 11 variables on two category coordinates); only the numbers change. Building
    such a result through :func:`variable`, :func:`dimension_coordinates` and
    :func:`dataset` took 17 us of a 37 us alpha call; :meth:`dataset` takes 5 us, and
    touches fewer objects where a call alternates with other work and finds the caches
    cold. The structure is read through xarray's public API. Each result gets its own
    Variables: the coordinates' copied (as :func:`_own_variables` does), the data
    variables' new, with copies of the template's attrs; data of another shape than the
    template's is refused. Reasons (:func:`is_reason`) are coordinates of the result but
    change from call to call: a layout takes them as data, as the data variables.
    """

    def __init__(self, template: xr.Dataset):
        coordinate_names = set(template.coords)
        # reasons are coordinates of the result but new text each call: data, as variables
        fixed = {name for name in coordinate_names if not is_reason(name)}
        # (name, dims, attrs, shape of the data; None for a fixed coordinate), in the
        # template's order; a plain list, read in one loop per result
        self._entries = [(name, var.dims, dict(var.attrs),
                          None if name in fixed else var.shape)
                         for name, var in template.variables.items()]
        self._coordinates = {name: template.variables[name] for name in fixed}
        self._coordinate_names = coordinate_names
        self._data_names = set(template.variables) - fixed
        self._sizes = dict(template.sizes)
        self._indexes = dict(template.xindexes)

    def dataset(self, data: Mapping[str, np.ndarray], attrs: dict | None = None
                ) -> xr.Dataset:
        """A Dataset of the template's structure with ``data`` (name -> numpy array, one for
        each data variable and each reason of the template) and the Dataset's ``attrs``
        (copied)."""
        if data.keys() != self._data_names:
            raise ValueError(f"data for {sorted(data)}; the layout has the variables "
                             f"{sorted(self._data_names)}")
        coordinates = _own_variables(self._coordinates)
        variables = {}
        for name, dims, attrs_of, shape in self._entries:
            if shape is None:
                variables[name] = coordinates[name]
                continue
            values = data[name]
            if type(values) is not np.ndarray or values.shape != shape:
                raise ValueError(f"data of shape {np.shape(values)} for {name!r}, which has "
                                 f"the shape {shape} in the layout (a numpy array)")
            if _DIRECT_VARIABLES:  # as variable() fills the slots (a call each took 2.5 us)
                made = xr.Variable.__new__(xr.Variable)
                made._dims, made._data, made._encoding = dims, values, None
                made._attrs = dict(attrs_of) if attrs_of else None
            else:  # pragma: no cover - a changed xarray: the public path
                made = xr.Variable(dims, values, attrs_of, fastpath=True)
            variables[name] = made
        construct = getattr(xr.Dataset, "_construct_direct", None)
        if construct is not None:
            try:
                return construct(variables, set(self._coordinate_names), dict(self._sizes),
                                 attrs=dict(attrs or {}), indexes=dict(self._indexes))
            except TypeError:  # pragma: no cover - a changed private signature
                pass
        return _public_dataset(  # pragma: no cover - the public path
            {name: var for name, var in variables.items() if name not in coordinates},
            coordinates, {}, self._indexes, attrs)
