"""Getting data in: from_sets, from_long, the bundled example, dim-name keywords."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from xr_agreement.datasets import BIAS_SELECTIONS, bias_example


def example_records():
    """Table 1 of the paper as (sentence, annotator, label set) records."""
    return [
        (sentence, annotator, set(chosen))
        for sentence, row in enumerate(BIAS_SELECTIONS, start=1)
        for annotator, chosen in enumerate(row, start=1)
    ]


def test_from_sets_rebuilds_the_worked_example_with_its_declared_universe():
    da = xr_agreement.from_sets(example_records(), labels=range(1, 32))
    expected = bias_example()
    assert da.dtype == np.uint8
    assert da.sizes == expected.sizes
    np.testing.assert_array_equal(da.values, expected.values)
    np.testing.assert_array_equal(da.label.values, np.arange(1, 32))


def test_from_sets_without_universe_keeps_only_used_labels():
    da = xr_agreement.from_sets(example_records())
    assert list(da.label.values) == [2, 3, 5, 14, 17, 21, 22, 23, 27, 29, 31]
    # the paper's Table 2: the 11-label universe
    assert float(da.agreement.mla("AC1").agreement) == pytest.approx(0.646, abs=5e-4)


def test_from_sets_dataframe_with_string_lists_and_missing_annotation():
    table = pd.DataFrame(
        {
            "item": ["a", "a", "b", "b", "c"],
            "annotator": ["x", "y", "x", "y", "x"],
            "labels": ["p;q", "q", "", None, "p"],
        }
    )
    da = xr_agreement.from_sets(table, labels=["p", "q", "r"])
    assert da.dtype == np.float64
    np.testing.assert_array_equal(da.sel(item="a", annotator="x").values, [1, 1, 0])
    np.testing.assert_array_equal(da.sel(item="b", annotator="x").values, [0, 0, 0])
    assert np.isnan(da.sel(item="b", annotator="y")).all()  # None: missing
    assert np.isnan(da.sel(item="c", annotator="y")).all()  # no record: missing
    assert list(da.label.values) == ["p", "q", "r"]


def test_from_sets_errors_name_the_record():
    with pytest.raises(ValueError, match=r"duplicate annotation.*item='a'.*annotator='x'"):
        xr_agreement.from_sets([("a", "x", {"p"}), ("a", "x", {"q"})])
    with pytest.raises(ValueError, match=r"label 'zz'.*record 1.*not in the declared"):
        xr_agreement.from_sets([("a", "x", {"p"}), ("a", "y", {"zz"})], labels=["p", "q"])
    with pytest.raises(ValueError, match="columns"):
        xr_agreement.from_sets(pd.DataFrame({"item": [1]}))
    with pytest.raises(ValueError, match=r"annotator_column='annotator'.*\['item'\]"):
        xr_agreement.from_sets(pd.DataFrame({"item": [1]}))


def test_column_keywords():
    table = pd.DataFrame({"doc": ["a", "a"], "coder": ["x", "y"], "tags": ["p", "p;q"]})
    da = xr_agreement.from_sets(table, item_column="doc", annotator_column="coder",
                                labels_column="tags")
    np.testing.assert_array_equal(da.sel(item="a").values, [[1, 0], [1, 1]])
    with pytest.raises(ValueError, match=r"labels_column='labels'.*'doc', 'coder', 'tags'"):
        xr_agreement.from_sets(table, item_column="doc", annotator_column="coder")
    long = pd.DataFrame({"doc": [1, 1], "coder": ["x", "y"], "tag": ["p", "q"],
                         "on": [1, 0]})
    da = xr_agreement.from_long(long, item_column="doc", annotator_column="coder",
                                label_column="tag", value_column="on")
    np.testing.assert_array_equal(da.sel(item=1).values, [[1, np.nan], [np.nan, 0]])
    with pytest.raises(ValueError, match=r"value_column='value'.*'doc', 'coder', 'tag', 'on'"):
        xr_agreement.from_long(long, item_column="doc", annotator_column="coder",
                               label_column="tag", value_column="value")


def test_from_long_positive_rows_and_value_column():
    positives = pd.DataFrame(
        {"item": [1, 1, 2], "annotator": ["a", "b", "b"], "label": ["x", "y", "y"]}
    )
    da = xr_agreement.from_long(positives, labels=["x", "y", "z"])
    assert da.dtype == np.uint8
    np.testing.assert_array_equal(da.sel(item=1).values, [[1, 0, 0], [0, 1, 0]])
    np.testing.assert_array_equal(da.sel(item=2).values, [[0, 0, 0], [0, 1, 0]])

    explicit = pd.DataFrame(
        {
            "item": [1, 1, 1, 1],
            "annotator": ["a", "a", "b", "b"],
            "label": ["x", "y", "x", "y"],
            "value": [1, 0, 1, 1],
        }
    )
    da = xr_agreement.from_long(explicit.iloc[:3], value_column="value")
    assert np.isnan(da.sel(item=1, annotator="b", label="y"))
    with pytest.raises(ValueError, match=r"column 'value' must be 0 or 1; row 1 has 2"):
        xr_agreement.from_long(explicit.assign(value=[1, 2, 0, 1]), value_column="value")
    with pytest.raises(ValueError, match=r"duplicate row"):
        xr_agreement.from_long(pd.concat([explicit, explicit.iloc[:1]]), value_column="value")


def test_custom_dim_names_and_any_dim_order():
    da = bias_example().rename(item="sentence", annotator="coder", label="bias")
    da = da.transpose("bias", "sentence", "coder")
    result = xr_agreement.mla(da, "F", item="sentence", annotator="coder", label="bias")
    assert float(result.agreement) == pytest.approx(0.2320, abs=5e-5)
    assert result.item_observed.dims == ("sentence",)
    assert result.label_agreement.dims == ("bias",)
    assert "label_name" in result.coords  # non-index coordinate kept
    with pytest.raises(ValueError, match=r"item dim 'item' not found.*\['bias', 'sentence'"):
        xr_agreement.mla(da)


def test_non_dataarray_input_is_refused():
    with pytest.raises(TypeError, match="xarray.DataArray"):
        xr_agreement.mla(np.zeros((2, 2, 2)))


def test_cli_report_prints_the_paper_numbers(capsys):
    from xr_agreement.cli import main

    assert main(["report"]) == 0
    out = capsys.readouterr().out
    for number in ("0.9140", "0.0753", "0.2320", "0.9031", "0.8280", "-0.3440", "0.8305",
                   "0.6989"):
        assert number in out


def test_result_is_dataframe_friendly():
    frame = bias_example().agreement.mla("all").label_agreement.to_dataframe()
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == 31 * 3
    assert isinstance(bias_example().agreement.mla(), xr.Dataset)
