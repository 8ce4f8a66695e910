"""Every result and every reader's output saves to every store and reopens the same.

The outputs of every public function (``test_vocabulary._outputs``) and the arrays and span
tables the readers give are written with each netCDF engine (scipy, netCDF4, h5netcdf) and
to zarr, reopened and compared with ``xarray.testing.assert_identical``: values, coordinates
and attrs. Their attrs hold only what every store accepts (strings, numbers, 1-D numeric
lists or arrays); structured values are JSON text (docs/vocabulary.md).
"""

from __future__ import annotations

import json
import warnings
from numbers import Number
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from test_vocabulary import _outputs, Computed, multi_label, span_table

DATA = Path(__file__).parent / "data"
TOOLS = DATA / "tools"
SPANS = DATA / "spans"
ENGINES = ("scipy", "netcdf4", "h5netcdf", "zarr")


def _read(path, **options):
    return lambda: xr_agreement.read_annotations(path, **options)


def _spans(path, **options):
    return lambda: xr_agreement.read_spans(path, **options)


READERS = {
    "table sets csv": _read(DATA / "bias_sets.csv"),
    "table sets parquet": _read(DATA / "bias_sets.parquet"),
    "table sets jsonl": _read(DATA / "bias_sets.jsonl"),
    "table long csv": _read(DATA / "bias_long.csv"),
    "table missing sets": _read(DATA / "missing_sets.csv"),
    "table single": _read(DATA / "single.csv", layout="single"),
    "table single declared": _read(DATA / "single.csv", layout="single",
                                   labels=["no", "maybe", "yes"]),
    "label studio": _read(TOOLS / "label_studio" / "export.json"),
    "label studio server": _read(TOOLS / "label_studio" / "server_1.23.2" / "json_all_tasks.json"),
    "label studio csv": _read(TOOLS / "label_studio" / "server_1.23.2" / "csv_all_tasks.csv"),
    "doccano": _read(TOOLS / "doccano" / "project_export.zip"),
    "doccano notes": _read(TOOLS / "doccano" / "server_1.8.4" / "jsonl_approved.zip"),
    "argilla": _read(TOOLS / "argilla" / "records_v1.jsonl"),
    "mturk": _read(TOOLS / "mturk" / "batch_results.csv"),
    "prodigy": _read(TOOLS / "prodigy" / "textcat_manual.jsonl"),
    # one label per row: read as ratings by default; its label sets by name
    "crowd": _read(TOOLS / "crowd" / "crowd_kit.csv", layout="sets"),
    # single-label ratings (text) of complete designs: a missing text rating comes back from
    # the netCDF engines as "" (xarray writes no fill value for text), not NaN
    "crowd ratings": _read(TOOLS / "crowd" / "padded_ids.csv"),
    "label studio ratings": _read(TOOLS / "label_studio" / "edited_timestamps.json"),
    "wide": _read(TOOLS / "wide" / "goemotions_1.csv"),
    "spans brat": _spans(SPANS / "brat" / "project"),
    "spans conll": _spans(SPANS / "conll" / "iob2"),
    "spans conll columns": _spans(SPANS / "conll" / "columns.tsv"),
    "spans doccano": _spans(SPANS / "doccano" / "approved_jsonl.zip"),
    "spans label studio": _spans(SPANS / "label_studio" / "server_1.23.2" / "json_all_tasks.json"),
    "spans prodigy": _spans(SPANS / "prodigy" / "ner_manual.jsonl"),
    "from_sets": lambda: xr_agreement.from_sets(
        [("s1", "ann", ["a"]), ("s1", "bob", ["a", "b"]), ("s2", "ann", []),
         ("s2", "bob", ["b"])], labels=["a", "b", "c"]),
    "from_long": lambda: xr_agreement.from_long(pd.DataFrame(
        {"item": ["s1", "s1", "s2", "s2"], "annotator": ["ann", "bob", "ann", "bob"],
         "label": ["a", "b", "a", "a"], "value": [1, 0, 1, 1]}), value_column="value"),
    "from_spans": span_table,
    "span_positions": lambda: xr_agreement.span_positions(span_table()),
    "one_hot": lambda: xr_agreement.one_hot(xr.DataArray(
        [["x", "y"], ["y", "y"]], dims=("item", "annotator"))),
    "simulate": lambda: xr_agreement.simulate("flip", 6, 3, 4, 0.3, seed=0),
}

OUTPUTS = {**_outputs(), **READERS}


@pytest.fixture(scope="module")
def made():
    return Computed(OUTPUTS)


def _roundtrip(obj, path, engine):
    """``obj`` written to ``path`` by ``engine`` and read back into memory. Warnings are
    errors but zarr's own about fixed-width strings (zarr v3 has no spec for them yet)."""
    array = isinstance(obj, xr.DataArray)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=r"The data type \(FixedLengthUTF32",
                                category=FutureWarning)
        if engine == "zarr":
            # consolidated=False: zarr v3 warns that consolidated metadata is not in its spec
            obj.to_zarr(path, mode="w", consolidated=False)
            opened = (xr.open_dataarray if array else xr.open_dataset)(
                path, engine="zarr", consolidated=False, chunks=None)
        else:
            obj.to_netcdf(path, engine=engine)
            opened = (xr.open_dataarray if array else xr.open_dataset)(path, engine=engine)
        with opened:
            return opened.load()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", sorted(OUTPUTS))
def test_saves_and_reopens(made, case, engine, tmp_path):
    original = made[case]
    back = _roundtrip(original, tmp_path / f"out.{engine}", engine)
    # no store keeps an index of a coordinate that is not its dim's own (the span table's
    # document_id, annotator_id, label_id): set again as docs/spans.md says
    for name in original.xindexes.keys() - back.xindexes.keys():
        back = back.set_xindex(name)
    # identical: values, coordinates, names and attrs. A store may give text another
    # width (fixed-width '<U5' back as object or '<U7'): identical compares the values.
    xr.testing.assert_identical(back, original)


def _attrs_of(obj):
    yield "", obj.attrs
    for name, variable in obj.variables.items() if isinstance(obj, xr.Dataset) else (
            [(obj.name, obj.variable)] + list(obj.coords.variables.items())):
        yield name, variable.attrs


def _storable(value) -> bool:
    def number(v):
        return isinstance(v, (Number, np.number)) and not isinstance(v, (bool, np.bool_))

    if isinstance(value, str) or number(value):
        return True
    return (isinstance(value, (list, tuple, np.ndarray)) and np.ndim(value) == 1
            and len(value) > 0 and all(number(v) for v in value))


@pytest.mark.parametrize("case", sorted(OUTPUTS))
def test_attrs_are_storable(made, case):
    """Strings, numbers (not booleans) and non-empty 1-D numeric lists or arrays only:
    what every netCDF engine and zarr write and read back as they were."""
    for name, attrs in _attrs_of(made[case]):
        for key, value in attrs.items():
            assert _storable(value), (
                f"{case}: attrs[{key!r}] of {name or 'the result'!r} is {value!r}; "
                "structured values are JSON text (_core.attrs.json_attr)")


def test_structured_attrs_read_back():
    """The JSON text of a structured attr gives the value back."""
    da = xr_agreement.read_annotations(TOOLS / "label_studio" / "export.json")
    dropped = json.loads(da.attrs["dropped"])
    assert isinstance(dropped, dict) and all(isinstance(v, dict) for v in dropped.values())
    ml = multi_label()
    result = ml.agreement.mla(baseline="all")
    assert json.loads(result.attrs["baseline"]) == ["F", "AC1", "PB"]
    assert len(json.loads(result.attrs["baseline_definition"])) == 3
    versus = ml.agreement.versus("ann-a")
    assert json.loads(versus.attrs["reference_annotators"]) == ["ann-b", "ann-c", "ann-d"]
    fleiss = xr_agreement.fleiss(xr.DataArray([["x", "y"], ["y", "y"]],
                                              dims=("item", "annotator")), label=None)
    assert json.loads(fleiss.attrs["categories"]) == ["x", "y"]


def test_label_set_categories_are_json_lists():
    """alpha on label sets: each category the JSON list of its labels in label order,
    telling apart sets whose labels hold commas, quotes or brackets."""
    labels = ["a, b", 'say "hi"', "[c]"]
    values = np.array([[[1, 1, 0], [1, 1, 0]], [[0, 0, 1], [1, 0, 1]], [[0, 0, 0], [0, 0, 0]]])
    sets = xr.DataArray(values, dims=("item", "annotator", "label"), coords={"label": labels})
    result = sets.agreement.alpha()
    names = result.category.values.tolist()
    assert sorted(map(tuple, map(json.loads, names))) == sorted(
        [(), ("a, b", 'say "hi"'), ("[c]",), ("a, b", "[c]")])
    assert "[]" in names and json.dumps(["a, b", 'say "hi"']) in names
    assert float(result.category_n_pairable_values.sel(category="[]")) == 2
    assert (result.paired_category.values == result.category.values).all()


@pytest.mark.parametrize("metric, multi_label", [
    ("nominal", False), ("nominal", True), ("hamming", True)])
def test_lazy_alpha_saves_without_computing_its_reasons_first(metric, multi_label, tmp_path):
    """A dask result's reasons have a fixed-width text dtype, as the eager result's: an
    object dtype made to_netcdf compute them (the whole alpha graph) to choose a dtype, with
    a SerializationWarning, before computing them again to write them."""
    pytest.importorskip("dask")
    rng = np.random.default_rng(0)
    shape = (12, 3, 2) if multi_label else (12, 3)
    da = xr.DataArray(rng.integers(0, 2 if multi_label else 3, shape).astype(float),
                      dims=("item", "annotator", "label")[:len(shape)])
    options = {} if multi_label else {"label": None}
    lazy = da.chunk({"item": 6}).agreement.alpha(metric, **options)
    eager = da.agreement.alpha(metric, **options)
    for name in (name for name in eager.coords if name.endswith("_reason")):
        assert lazy[name].dtype.kind == "U" and lazy[name].dtype == eager[name].dtype, name
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lazy.to_netcdf(tmp_path / "lazy.nc", engine="scipy")
    with xr.open_dataset(tmp_path / "lazy.nc", engine="scipy") as back:
        back = back.load()
    xr.testing.assert_identical(back, lazy.compute())
    for name in (name for name in eager.coords if name.endswith("_reason")):
        np.testing.assert_array_equal(back[name].values, eager[name].values)


def _doc_of(case):
    """The docstring that documents ``case``'s result (the kappa family's but cohen's say
    "returns as in fleiss")."""
    from xr_agreement.spans.positions.api import span_mla

    name = case.split()[0]
    function = span_mla if case.startswith("span mla") else getattr(xr_agreement, name)
    doc = function.__doc__
    if "returns as in :func:`fleiss`" in " ".join(doc.split()):
        doc += xr_agreement.fleiss.__doc__
    return " ".join(doc.split())


@pytest.mark.parametrize("case", sorted(_outputs()))
def test_json_text_attrs_are_documented(made, case):
    """A result attr that a user read as a list before issue 31 and is JSON text now is
    named as JSON text in its function's docstring."""
    for key, value in made[case].attrs.items():
        if isinstance(value, str) and value[:1] in "[{":
            doc = _doc_of(case)
            assert "JSON" in doc and (f'attrs["{key}"]' in doc or f"``{key}``" in doc), (
                case, key)


@pytest.mark.parametrize("engine", ENGINES)
def test_missing_text_ratings_reopened_as_blank_are_refused(engine, tmp_path):
    """A missing text rating (NaN) comes back from every store as "": counted as a category
    it would make such cells agree. The kappa family and alpha refuse it, naming the cell,
    and the documented repair gives the original numbers back."""
    ratings = xr.DataArray(
        np.array([["pos", "pos", "neg"], ["neg", "neg", np.nan], ["pos", "neu", "pos"],
                  ["neu", np.nan, np.nan]], dtype=object), dims=("item", "annotator"),
        coords={"item": ["s1", "s2", "s3", "s4"], "annotator": ["ann", "bob", "cy"]},
        name="rating")
    back = _roundtrip(ratings, tmp_path / f"out.{engine}", engine)
    assert back.sel(item="s2", annotator="cy").item() == ""  # what the stores do today
    for function in (xr_agreement.fleiss, xr_agreement.cohen, xr_agreement.gwet,
                     xr_agreement.alpha, xr_agreement.percent):
        with pytest.raises(ValueError, match=r"rating '' at item='s2', annotator='cy' is "
                                             r"blank text, not a category"):
            function(back)
    repaired = back.astype(object).where(back.str.strip() != "")  # as the message says
    # the numbers of the original, against a plain count: 1 - D_o / D_e by hand
    # (pairable values of s1-s3; s4 has one rating)
    pairs = [("pos", "pos"), ("pos", "neg"), ("pos", "neg"), ("neg", "neg"), ("pos", "neu"),
             ("pos", "pos"), ("neu", "pos")]
    values = ["pos", "pos", "neg", "neg", "neg", "pos", "neu", "pos"]
    weights = [1 / 2] * 3 + [1] + [1 / 2] * 3  # ordered pairs / (m_u - 1), halved
    observed = 2 * sum(w for (a, b), w in zip(pairs, weights) if a != b)
    n = len(values)
    counts = pd.Series(values).value_counts()
    expected = (n * n - (counts ** 2).sum()) / (n - 1)
    alpha = 1 - (observed / n) / (expected / n)
    assert float(xr_agreement.alpha(repaired).alpha) == pytest.approx(alpha, abs=1e-12)
    assert float(xr_agreement.fleiss(repaired).coefficient) == float(
        xr_agreement.fleiss(ratings).coefficient)
