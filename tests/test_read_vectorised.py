"""The table reader's whole-column path (xr_agreement/io/vectorised.py) against its per-row
code: on random files and on the tools' fixtures, both give the same DataArray (values,
coordinates, dtypes, attrs) or the same error message; and the whole-column path is the one
taken on ordinary files (else these comparisons would compare the per-row code with itself).
"""

from __future__ import annotations

import csv
import glob
import json
import os
import random
import re

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from xr_agreement.io import files, vectorised

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _per_row(monkeypatch):
    """Every whole-column step turned off: the reader as it was, row by row."""
    def fallback(*args, **kwargs):
        raise vectorised.Fallback

    monkeypatch.setattr(files, "sets_decisions", fallback)
    monkeypatch.setattr(files, "single_ratings", fallback)
    monkeypatch.setattr(files, "quote_free_table", lambda *args: None)
    monkeypatch.setattr(files, "json_lines", lambda *args: None)


def _read(path, **options):
    try:
        return xr_agreement.read_annotations(path, **options)
    except Exception as error:  # noqa: BLE001 - compared as type and message
        return type(error), str(error)


def _same(fast, slow):
    if isinstance(slow, tuple) or isinstance(fast, tuple):
        assert fast == slow
        return
    xr.testing.assert_identical(fast, slow)
    assert fast.dtype == slow.dtype
    for name in slow.coords:
        assert fast[name].dtype == slow[name].dtype, name
        assert fast[name].values.tolist() == slow[name].values.tolist(), name
    assert fast.attrs == slow.attrs


def _both(monkeypatch, path, **options):
    fast = _read(path, **options)
    with monkeypatch.context() as patched:
        _per_row(patched)
        slow = _read(path, **options)
    _same(fast, slow)
    return fast


LABELS = ["a", "b", "c d", "é", "日本", "x-1", "10", "2"]


@pytest.fixture(params=["arrow", "object"])
def text_dtype(request, monkeypatch):
    """Each test twice: text in Arrow strings (pyarrow installed) and as Python objects."""
    if request.param == "object":
        monkeypatch.setattr(files, "arrow_strings", lambda: None)
    return request.param


def _random_sets(rng: random.Random, numbers: bool):
    """(item, annotator, cell) rows: string or integer ids with spaces around some, blank
    cells, separators with spaces, missing (item, annotator) pairs."""
    labels = ["1", "2", "03", "4"] if numbers else LABELS
    rows = []
    for i in range(rng.randint(1, 12)):
        item = str(i) if numbers else rng.choice([f"doc-{i}", f" doc-{i}", f"doc-{i} "])
        for annotator in ("ann", "bob", "carl"):
            if rng.random() < 0.15:
                continue
            chosen = rng.sample(labels, rng.randint(0, 3))
            cell = rng.choice([";", " ; ", "; "]).join(chosen)
            rows.append((item, annotator, rng.choice([cell, cell, "", "  "])))
    return rows or [("x", "ann", "a")]


def _write_csv(path, rows, quoting, sep=","):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter=sep, quoting=quoting)
        writer.writerow(["item", "annotator", "labels"])
        writer.writerows(rows)


@pytest.mark.parametrize("seed", range(12))
def test_random_sets_files_read_alike(tmp_path, monkeypatch, seed, text_dtype):
    rng = random.Random(seed)
    numbers = seed % 3 == 0
    rows = _random_sets(rng, numbers)
    if seed % 4 == 1:  # a label listed twice, or a label outside the universe
        item, annotator, _ = rows[0]
        rows[0] = (item, annotator, "a;a" if rng.random() < 0.5 else "zzz")
    quoting = csv.QUOTE_ALL if seed % 2 else csv.QUOTE_MINIMAL
    path = tmp_path / "votes.csv"
    _write_csv(path, rows, quoting)
    universe = (["1", "2", "03", "4"] if numbers else LABELS)
    _both(monkeypatch, path)
    _both(monkeypatch, path, labels=universe)
    _write_csv(tmp_path / "votes.tsv", rows, quoting, "\t")
    _both(monkeypatch, tmp_path / "votes.tsv")
    with open(tmp_path / "votes.jsonl", "w", encoding="utf-8") as handle:
        for item, annotator, cell in rows:
            parts = [p for p in cell.split(";")]  # blanks and spaces kept as the file has them
            handle.write(json.dumps({"item": int(item) if numbers else item,
                                     "annotator": annotator,
                                     "labels": parts if seed % 2 else cell}) + "\n")
    _both(monkeypatch, tmp_path / "votes.jsonl")
    _both(monkeypatch, tmp_path / "votes.jsonl", labels=universe)


@pytest.mark.parametrize("text", [
    "item,annotator,labels\ns1,ann,a\ns1,ann,b\n",  # a duplicated row
    "item,annotator,labels\ns1,ann,a\n,bob,b\n",  # a blank id
    "item,annotator,labels\ns1,ann,a\ns2,bob,\u200b\n",  # invisible characters only
    "item,annotator,labels\ns1,ann,a;\u200b\ns2,bob,b\n",  # an invisible label
    "item,annotator,labels\ns1,ann,[a]\ns2,bob,b\n",  # text that looks like a list
    "item,annotator,labels\ns1,ann,a\ns2,bob,a|b\ns3,ann,b\n",  # labels joined by "|"
    "item,annotator,labels\ns1,ann,\ns2,bob,\n",  # no label anywhere
    "item,annotator,labels\ns1,ann,a\ns2,bob\n",  # a short row
    "item,annotator,labels\ns1,ann,a,\ns2,bob,b\n",  # a long first row
    "item,annotator,labels\ns1,ann,a\ns2,bob,b,\n",  # a long row
    "item,annotator,labels\ns1,ann,a\n\ns2,bob,b\n",  # a blank line
    "item,annotator,labels\r\ns1,ann,a\r\ns2,bob,b\r\n",  # Windows line ends
    "item,annotator,labels\rs1,ann,a\rs2,bob,b\r",  # old Mac line ends
    'item,annotator,labels\ns1,ann,"a;b"\ns2,bob,"b\n',  # a quote never closed
    "item,item,labels\ns1,ann,a\n",  # a header name twice
    "\ufeffitem,annotator,labels\n 01,ann,a\n1,bob,b\n",  # ids that would merge as ints
    "item,annotator,labels\n1,ann,2\n2,bob,1;3\n",  # integer labels
    "item,annotator,labels\n1,ann,02\n2,bob,2\n",  # integer labels that would merge
    "item,annotator,labels\ns1,ann,a\x00\n",  # a NUL character
])
def test_odd_csv_files_read_alike(tmp_path, monkeypatch, text):
    path = tmp_path / "votes.csv"
    path.write_text(text, encoding="utf-8", newline="")
    _both(monkeypatch, path)
    _both(monkeypatch, path, labels=["a", "b", "c"])


@pytest.mark.parametrize("lines", [
    ['{"item": "s1", "annotator": "a", "labels": ["x"]}', "",
     '{"item": "s2", "annotator": "a", "labels": []}'],  # a blank line
    ['{"item": "s1", "annotator": "a", "labels": ["x"]} ',
     ' {"item": "s2", "annotator": "a", "labels": []}'],  # blanks around records
    ['{"item": "s1", "annotator": "a", "labels": ["x", NaN]}'],
    ['{"item": "s1", "annotator": "a", "labels": ["x"]}, {}'],  # two values on a line
    ['{"item": "s1", "annotator": "a", "labels": ["x"]}', "[1]"],
    ['{"item": "s1", "annotator": "a", "labels": ["x"]}', '{"item": "s2", "annotator": "a"}'],
    ['{"item": "s1", "annotator": "a", "labels": [" x", "\u200b", "y "]}'],
    ['{"item": 1, "annotator": "a", "labels": [1, 2]}',
     '{"item": "1", "annotator": "b", "labels": ["2"]}'],  # numbers beside text
    ['{"item": {"id": 1}, "annotator": "a", "labels": ["x"]}'],  # an object as the id
    ['{"item": true, "annotator": "a", "labels": ["x"]}'],
    ['{"item": 1.5, "annotator": "a", "labels": ["x"]}'],
    ['{"item": "s1", "annotator": "a", "labels": null}',
     '{"item": "s2", "annotator": "a", "labels": ["x", "x"]}'],
])
def test_odd_json_lines_read_alike(tmp_path, monkeypatch, lines):
    path = tmp_path / "votes.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _both(monkeypatch, path)
    _both(monkeypatch, path, labels=["x", "y", "1", "2"])


TOOL_FILES = sorted(
    p for folder in ("tools", "tools_oracle") for p in
    glob.glob(os.path.join(ROOT, "tests", "data", folder, "**", "*.*"), recursive=True)
    if p.endswith((".csv", ".tsv", ".json", ".jsonl", ".zip")))
TABLE_FILES = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "*.*")))


@pytest.mark.parametrize("path", TOOL_FILES + TABLE_FILES,
                         ids=lambda p: os.path.relpath(p, os.path.join(ROOT, "tests", "data")))
def test_fixtures_read_alike(monkeypatch, path):
    _both(monkeypatch, path)


def test_ordinary_files_take_the_whole_column_path(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the per-row code was called")

    def csv_module(path, sep, text, nrows):
        assert nrows is not None, "the whole file read by the csv module"  # peeks are
        return csv_records(path, sep, text, nrows)

    csv_records = files._csv_records
    monkeypatch.setattr(files, "_sets", refuse)
    monkeypatch.setattr(files, "_long", refuse)
    monkeypatch.setattr(files, "_csv_records", csv_module)
    path = tmp_path / "votes.csv"
    path.write_text("item,annotator,labels\ns1,ann,a;b\ns1,bob,\ns2,ann, b \n", "utf-8")
    da = xr_agreement.read_annotations(path, labels=["a", "b", "c"])
    assert da.sel(item="s2", annotator="ann").values.tolist() == [0, 1, 0]
    assert np.isnan(da.sel(item="s2", annotator="bob")).all()
    long = tmp_path / "long.csv"
    long.write_text("item,annotator,label,value\ns1,ann,a,1\ns1,ann,b,0\ns2,ann,b,1\n",
                    "utf-8")
    assert xr_agreement.read_annotations(long).sel(item="s1").values.tolist() == [[1, 0]]
    monkeypatch.setattr(files, "arrow_strings", lambda: None)
    xr.testing.assert_identical(xr_agreement.read_annotations(path, labels=["a", "b", "c"]), da)
    path = tmp_path / "votes.jsonl"
    path.write_text('{"item": 1, "annotator": "a", "labels": ["x"]}\n'
                    '{"item": 2, "annotator": "a", "labels": []}\n', "utf-8")
    monkeypatch.setattr(files, "parse_json", refuse)
    assert xr_agreement.read_annotations(path).sel(item=1).values.tolist() == [[1]]


@pytest.mark.parametrize("seed", range(8))
def test_random_long_files_read_alike(tmp_path, monkeypatch, seed, text_dtype):
    rng = random.Random(seed)
    labels = ["1", "2", "03"] if seed % 3 == 0 else LABELS
    words = ["1", "0", " yes", "False", "true "]
    rows = [(rng.choice([f"doc-{i}", f" doc-{i}"]), annotator, f" {label}" if i % 2 else label,
             rng.choice(words))
            for i in range(rng.randint(1, 8)) for annotator in ("ann", "bob")
            for label in rng.sample(labels, rng.randint(1, 3))]
    if seed % 4 == 1:  # a duplicated row, a blank label, a value other than 0/1, an unknown label
        rows.append(rng.choice([rows[0], (*rows[0][:2], " ", "1"), (*rows[0][:3], "2"),
                                ("x", "ann", "zzz", "1")]))
    for with_value in (True, False):
        path = tmp_path / "long.csv"
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, quoting=csv.QUOTE_ALL if seed % 2 else
                                csv.QUOTE_MINIMAL)
            writer.writerow(["item", "annotator", "label", "value"][:3 + with_value])
            writer.writerows(row[:3 + with_value] for row in rows)
        _both(monkeypatch, path, layout="long")
        _both(monkeypatch, path, layout="long", labels=labels)


@pytest.mark.parametrize("sep", ["|", " | ", "||", " "])
def test_other_separators_read_alike(tmp_path, monkeypatch, sep):
    path = tmp_path / "votes.csv"
    path.write_text(f"item,annotator,labels\ns1,ann,a{sep}b\ns1,bob,b{sep}{sep}{sep}c\n"
                    f"s2,ann,{sep}\ns2,bob,a|||b\n", "utf-8")
    _both(monkeypatch, path, sep=sep)
    _both(monkeypatch, path, sep=sep, labels=["a", "b", "c", "a|||b", "|b", "a|"])


def _same_indexes(fast, slow):
    """The indexes too (``_same`` compares coordinates' values and dtypes): the whole-column
    path builds the ids' index from Arrow text (vectorised.id_coordinate)."""
    _same(fast, slow)
    if not isinstance(slow, tuple):
        for name in slow.indexes:
            assert fast.indexes[name].dtype == slow.indexes[name].dtype, name
            assert fast.indexes[name].equals(slow.indexes[name]), name


@pytest.mark.parametrize("piece_rows", [1, 2, 5])
@pytest.mark.parametrize("seed", range(12))
def test_label_lists_read_in_pieces_alike(tmp_path, monkeypatch, seed, piece_rows):
    """The label lists of an Arrow column split and encoded in pieces of a few rows (each
    with its own distinct labels, merged after), beside the ids, in the thread pool."""
    monkeypatch.setattr(vectorised, "PIECE_ROWS", piece_rows)
    rng = random.Random(seed)
    rows = _random_sets(rng, seed % 3 == 0)
    if seed % 4 == 1:  # something the whole-column path leaves to the per-row code, late
        item, annotator, _ = rows[-1]
        rows[-1] = (item, annotator, rng.choice(["a;a", "zzz", "[a]", "a;\u200b", "a|b"]))
    path = tmp_path / "votes.csv"
    _write_csv(path, rows, csv.QUOTE_MINIMAL)
    universe = ["1", "2", "03", "4"] if seed % 3 == 0 else LABELS
    for options in ({}, {"labels": universe}):
        with monkeypatch.context() as patched:
            if seed % 4 != 1:  # read by the whole-column path
                patched.setattr(files, "_sets", None)
            fast = _read(path, **options)
        with monkeypatch.context() as patched:
            _per_row(patched)
            slow = _read(path, **options)
        _same_indexes(fast, slow)


@pytest.mark.parametrize("ids", [
    ["doc-1", "doc-10", "d"],  # ids of several lengths: the coordinate is <U6
    ["a", "1"],  # integer text beside other text: kept as text
    ["1", "+2", "-3"],  # all integers: ints
    ["01", "1"],  # integers that would merge: text
    [" a", "b"], ["a\t", "b"], ["a\x1c", "b"], ["a\x0b", "b"],  # blanks around an id
    ["é", "b"], ["日本", "x"],  # not ASCII
    ["a b", "c"],  # a blank inside is kept
])
def test_ids_read_alike(tmp_path, monkeypatch, ids):
    path = tmp_path / "votes.csv"
    path.write_text("item,annotator,labels\n" + "".join(
        f"{item},{annotator},a\n" for item in ids for annotator in ids), "utf-8")
    fast = _read(path)
    with monkeypatch.context() as patched:
        _per_row(patched)
        slow = _read(path)
    _same_indexes(fast, slow)


@pytest.mark.parametrize("large", [False, True], ids=["string", "large_string"])
def test_plain_ids_are_those_kept_as_they_are(large):
    """vectorised._plain_ids, which keeps ids as Arrow text, says yes only where
    ids_as_coordinate leaves every id as it is; id_coordinate then makes the coordinate
    xarray makes of the list."""
    pyarrow = pytest.importorskip("pyarrow")
    from xr_agreement.io.cells import ids_as_coordinate

    rng = random.Random(0)
    pieces = ["a", "B", "7", "-", "+", " ", "\t", "\x1c", "\x1f", "\x0b", "é", ".", "0"]
    for _ in range(400):
        ids = list(dict.fromkeys("".join(rng.choices(pieces, k=rng.randint(1, 4)))
                                 for _ in range(rng.randint(1, 5))))
        # a slice (an offset into the buffers), after an id that is not plain
        array = pyarrow.array(["\t"] + ids, pyarrow.large_string() if large else
                              pyarrow.string())[1:]
        plain = (all(map(str.isascii, ids)) and all(i.strip() == i for i in ids)
                 and not all(re.match(r"[+-]?[0-9]+\Z", i) for i in ids))
        assert vectorised._plain_ids(array) == plain, ids
        if plain:
            assert ids_as_coordinate(ids) == ids and all(map(str.isascii, ids)), ids
            variable = vectorised.id_coordinate("item", array)
            expected = xr.DataArray(np.zeros(len(ids)), dims="item", coords={"item": ids})
            assert variable.dtype == expected["item"].dtype
            assert variable.values.tolist() == ids
            got = xr.DataArray(np.zeros(len(ids)), dims="item", coords={"item": variable})
            xr.testing.assert_identical(got, expected)
            assert got.indexes["item"].dtype == expected.indexes["item"].dtype


@pytest.mark.parametrize("block", [1, 2, 3, 7, 1 << 18])
def test_byte_checks_in_blocks(monkeypatch, block):
    """vectorised._quote_free_separators, which looks at the file in blocks, answers as
    the whole-file questions do, wherever the blocks end (a CRLF across two blocks)."""
    monkeypatch.setattr(vectorised, "CHECK_BLOCK", block)
    rng = random.Random(block)
    for _ in range(300):
        data = bytes(rng.choice(b'ab,;\r\n"\x00') if rng.random() < 0.3 else ord("a")
                     for _ in range(rng.randint(0, 12)))
        sep = rng.choice(",;")
        expected = (None if b'"' in data or b"\x00" in data
                    or data.count(b"\r") != data.count(b"\r\n") else data.count(sep.encode()))
        assert vectorised._quote_free_separators(data, sep) == expected, data


@pytest.mark.parametrize("piece_rows", [2, 1 << 17])
def test_label_lists_of_several_arrow_arrays(monkeypatch, piece_rows):
    """A column held in several Arrow arrays (as pandas' parallel reading of a large file
    gives it) is read piece by piece as it is, and as the same column in one array."""
    pyarrow = pytest.importorskip("pyarrow")
    monkeypatch.setattr(vectorised, "PIECE_ROWS", piece_rows)
    rng = random.Random(piece_rows)
    rows = [(f"doc-{i}", f"ann-{a}", ";".join(rng.sample(LABELS, rng.randint(0, 3))))
            for i in range(40) for a in range(3)]

    def column(values, sizes):
        chunks, start = [], 0
        for size in sizes:
            chunks.append(pyarrow.array(values[start:start + size], pyarrow.string()))
            start += size
        return pd.Series(pd.arrays.ArrowExtensionArray(pyarrow.chunked_array(chunks)))

    def table(sizes):
        return pd.DataFrame({name: column([row[j] for row in rows], sizes)
                             for j, name in enumerate(["item", "annotator", "labels"])})

    columns = ("item", "annotator", "labels")
    one = vectorised.sets_decisions(table([len(rows)]), columns, None, ";")
    for sizes in ([50, 0, 70], [1] * len(rows), [119, 1]):
        several = vectorised.sets_decisions(table(sizes), columns, None, ";")
        np.testing.assert_array_equal(several[0], one[0])
        assert several[0].dtype == one[0].dtype
        for got, expected in zip(several[1:], one[1:]):
            assert list(got) == list(expected)
    rows[-1] = ("doc-39", "ann-2", None)  # a missing cell in the last array
    with pytest.raises(vectorised.Fallback):
        vectorised.sets_decisions(table([100, 20]), columns, None, ";")


@pytest.mark.parametrize("seed", range(10))
def test_random_single_files_read_alike(tmp_path, monkeypatch, seed, text_dtype):
    """Ratings (layout "single"): text or integer text, spaces around, blank cells, absent
    rows; and the cases the per-row code refuses (a duplicated row, a rating outside the
    declared categories, integer texts that would merge)."""
    rng = random.Random(seed)
    categories = [["1", "2", "3"], ["pos", "neg", "neu", "日本"], ["01", "1", "2"]][seed % 3]
    rows = [(rng.choice([f"doc-{i}", f" doc-{i}"]) if seed % 2 else str(i), annotator,
             rng.choice([f" {c}" if rng.random() < 0.3 else c for c in categories] + ["", " "]))
            for i in range(rng.randint(1, 10)) for annotator in ("ann", "bob", "cy")
            if rng.random() < 0.85]
    if seed % 4 == 1:  # a duplicated row, or a rating outside the categories
        rows.append(rng.choice([rows[0], ("x", "ann", "zzz")]))
    path = tmp_path / "ratings.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL if seed % 3 == 2 else
                            csv.QUOTE_MINIMAL)
        writer.writerow(["item", "annotator", "rating"])
        writer.writerows(rows)
    _both(monkeypatch, path, layout="single")
    _both(monkeypatch, path, layout="single", labels=categories)


def test_ordinary_ratings_take_the_whole_column_path(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the per-row code was called")

    monkeypatch.setattr(files, "_single", refuse)
    path = tmp_path / "ratings.csv"
    path.write_text("item,annotator,rating\ns1,ann,pos\ns1,bob, neg\ns2,ann,\ns3,bob,pos\n",
                    "utf-8")
    da = xr_agreement.read_annotations(path, layout="single", labels=["pos", "neg", "neu"])
    assert da.values.tolist()[0] == ["pos", "neg"]
    assert pd.isna(da.sel(item="s2", annotator="ann").item())
    assert json.loads(da.attrs["categories"]) == ["pos", "neg", "neu"]
    numbers = tmp_path / "numbers.csv"
    numbers.write_text("item,annotator,rating\n1,a,3\n1,b,4\n2,a,\n", "utf-8")
    ratings = xr_agreement.read_annotations(numbers, layout="single")
    assert ratings.dtype == float and ratings.values.tolist()[0] == [3.0, 4.0]

