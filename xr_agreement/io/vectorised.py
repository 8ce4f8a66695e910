"""The common path of the table reader, in whole-column operations: a quote-free CSV parsed by
pandas, ids and label lists factorized, the decisions set by one numpy assignment.

Every function here either returns what the per-row code of :mod:`xr_agreement.io.files`
would return for the same table, or raises :class:`Fallback` (returns None for the CSV
parser) as soon as the table holds anything that code treats specially: a blank id, a
duplicated row, a label outside the universe, a cell that looks like a list, an invisible
label, quotes, a short row... The reader then runs the per-row code, which raises the
located error, so every message stays the one that code writes. Python loops here run over
the distinct ids and labels, never over the rows.
"""

from __future__ import annotations

import csv
import gc
import io
import itertools
import json
import operator
import os

import numpy as np
import pandas as pd

from .cells import ids_as_coordinate, invisible, joined_labels, label_spelling


class Fallback(Exception):
    """The table holds something the whole-column path does not decide: read it row by row."""


def arrow_strings():
    """pandas' Arrow string dtype when pyarrow is installed (the ``io`` extra), else None:
    text kept in Arrow buffers is parsed, factorized and split without a Python object per
    cell (as object, the same CSV takes 5-10x longer to parse)."""
    try:
        import pyarrow
    except ImportError:
        return None
    return pd.ArrowDtype(pyarrow.string())


def quote_free_table(data: bytes, sep: str, dtype, source=None
                     ) -> tuple[list[str], pd.DataFrame] | None:
    """The header and the data rows of a CSV (UTF-8 bytes, no BOM; columns numbered),
    parsed by pandas, or None when the csv module must read it: quotes (its rules of
    quoting differ from pandas'), NUL characters, a lone carriage return, a separator that
    is not one ASCII character, text that is not UTF-8, and any line whose field count is
    not the header's (a blank line, a short or long row).

    The field counts are checked without looking at lines one by one: pandas refuses a row
    longer than the header (or, on the first data row, takes the first field as the index)
    and keeps a blank line as a row of empty cells, so the separators of the whole file
    number exactly ``(fields - 1)`` per row and header only when no row is shorter. Every
    data row is then on its own line, ``line = row + 2``.

    ``source``: the uncompressed file ``data`` was read from, which pandas then parses
    itself (BOM dropped as ``data`` drops it): 29-31 ms against 55-80 ms from the bytes in
    memory for the 26 MB sets CSV of benchmarks/bench_read.py."""
    if (len(sep) != 1 or not sep.isascii() or sep in '"\r\n' or b'"' in data
            or b"\x00" in data or b"\r" in data and data.count(b"\r") != data.count(b"\r\n")):
        return None
    end = data.find(b"\n")
    try:
        header = data[:end].removesuffix(b"\r").decode("utf-8").split(sep)
        if len(header) < 2 or end < 0:
            return None
        table = pd.read_csv(io.BytesIO(data) if source is None else source,
                            encoding="utf-8-sig", sep=sep, header=None, skiprows=1,
                            names=range(len(header)), dtype=dtype, na_filter=False,
                            quoting=csv.QUOTE_NONE, skip_blank_lines=False, engine="c")
    except (pd.errors.ParserError, ValueError):  # UnicodeDecodeError, EmptyDataError too
        return None
    # numpy counts a byte 5x as fast as bytes.count
    separators = np.count_nonzero(np.frombuffer(data, np.uint8) == ord(sep))
    if (table.empty or not isinstance(table.index, pd.RangeIndex)
            or separators != (len(table) + 1) * (len(header) - 1)):
        return None
    return header, table


def file_bytes(path, open_text) -> bytes | None:
    """The bytes of a CSV file as UTF-8 without a BOM: read as they are when uncompressed,
    else decompressed and decoded by ``open_text`` (files._open_text); None when reading
    fails (the csv module's reading then raises the error the reader names)."""
    try:
        if os.fspath(path).lower().endswith((".gz", ".bz2", ".xz", ".zip", ".zst")):
            with open_text(path) as handle:
                return handle.read().encode()
        with open(path, "rb") as handle:
            return handle.read().removeprefix(b"\xef\xbb\xbf")
    except Exception:  # noqa: BLE001 - each archive format raises its own types
        return None


def _refuse(constant):
    raise ValueError(constant)


def json_lines(path) -> tuple[list[dict], np.ndarray] | None:
    """The records of a JSON-lines file and their line numbers, or None when the per-line
    reader must read it: a blank or indented line, text after a record, a line that is not
    an object, NaN or Infinity, anything that fails to parse. Each line is parsed by the
    json module's C scanner, called by ``map`` (a decoder per line, as ``json.loads`` with
    options builds, took most of the time), with the garbage collector paused."""
    try:
        with open(path, encoding="utf-8-sig") as handle:  # as the per-line reader opens it
            lines = handle.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    if lines[-1] == "":
        lines.pop()
    scan = json.JSONDecoder(parse_constant=_refuse).scan_once
    collecting = gc.isenabled()
    gc.disable()  # the collector walked every record built so far, again and again: 10x
    try:  # map stops at the StopIteration of a line that holds no JSON value
        scanned = list(map(scan, lines, itertools.repeat(0)))
    except (ValueError, RecursionError):
        return None
    finally:
        if collecting:
            gc.enable()
    if not lines or len(scanned) != len(lines):
        return None
    records = list(map(operator.itemgetter(0), scanned))
    if (list(map(operator.itemgetter(1), scanned)) != list(map(len, lines))
            or set(map(type, records)) != {dict}):
        return None
    return records, np.arange(1, len(records) + 1, dtype=np.int64)


def _arrow_array(series: pd.Series):
    """The Arrow array of an Arrow-backed text column (one chunk), or None."""
    if not (isinstance(series.dtype, pd.ArrowDtype)
            or getattr(series.dtype, "storage", None) == "pyarrow"):
        return None
    import pyarrow

    array = pyarrow.array(series)
    if isinstance(array, pyarrow.ChunkedArray):
        array = array.combine_chunks()
    if not pyarrow.types.is_string(array.type) and not pyarrow.types.is_large_string(
            array.type):
        return None
    return array


def id_codes(series: pd.Series) -> tuple[list, np.ndarray]:
    """The ids of a column as coordinate values (:func:`ids_as_coordinate`), in the order
    they first appear, and each row's position among them. Fallback: a blank or missing
    id, or ids other than all text or all integers."""
    array = _arrow_array(series)
    if array is not None:
        return _arrow_id_codes(array)
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    if len(codes) and codes.min() < 0:
        raise Fallback
    distinct = uniques.tolist()
    kind = pd.api.types.infer_dtype(distinct, skipna=False)
    if kind == "string":
        stripped = list(map(str.strip, distinct))
        if not all(stripped) or not all(map(str.isprintable, stripped)):
            if any(map(invisible, distinct)):
                raise Fallback
    elif kind != "integer":
        raise Fallback
    return ids_as_coordinate(distinct), codes.astype(np.int64, copy=False)


# ASCII blanks Python's str.strip() removes, and integer text as cells._INTEGER reads it
# in ASCII text without a trailing newline (which the blanks' test has ruled out)
_EDGE_BLANK = r"^[\t\n\x0b\x0c\r\x1c-\x1f ]|[\t\n\x0b\x0c\r\x1c-\x1f ]$"
_ASCII_INTEGER = r"^[+-]?[0-9]+$"


def _arrow_id_codes(array) -> tuple[list, np.ndarray]:
    """:func:`id_codes` of an Arrow text column. Ids that are ASCII text, none blank,
    none with blanks around it and not all integers (document and annotator names) stay
    as they are, told by Arrow's string kernels; others go through ids_as_coordinate."""
    import pyarrow.compute as compute

    if array.null_count:
        raise Fallback
    encoded = compute.dictionary_encode(array)
    distinct = encoded.dictionary
    codes = encoded.indices.to_numpy().astype(np.int64, copy=False)
    plain = (len(distinct) and compute.all(compute.string_is_ascii(distinct)).as_py()
             and compute.min(compute.utf8_length(distinct)).as_py() > 0
             and not compute.any(compute.match_substring_regex(distinct, _EDGE_BLANK)).as_py()
             and not compute.all(compute.match_substring_regex(distinct,
                                                               _ASCII_INTEGER)).as_py())
    distinct = distinct.to_pylist()
    if plain:
        return distinct, codes
    if any(map(invisible, distinct)):
        raise Fallback
    return ids_as_coordinate(distinct), codes


def _split_text(series: pd.Series, sep: str) -> tuple[np.ndarray, np.ndarray, list]:
    """The parts of text cells split at ``sep``: the row of each part, its code, the
    distinct parts (unstripped)."""
    array = _arrow_array(series)
    if array is not None:
        import pyarrow.compute as compute

        if array.null_count:
            raise Fallback
        split = compute.split_pattern(array, sep)
        rows = compute.list_parent_indices(split).to_numpy()
        encoded = compute.dictionary_encode(compute.list_flatten(split))
        return rows, encoded.indices.to_numpy(), encoded.dictionary.to_pylist()
    cells = series.tolist()
    if "\n" in sep:
        raise Fallback
    # one string of every cell, split once: cells that hold a newline are read row by row
    joined = "\n".join(cells)
    if joined.count("\n") != len(cells) - 1:
        raise Fallback
    counts = np.fromiter(map(operator.methodcaller("count", sep), cells), np.int64, len(cells))
    parts = joined.replace("\n", sep).split(sep)
    rows = np.repeat(np.arange(len(cells)), counts + 1)
    codes, distinct = pd.factorize(np.asarray(parts, dtype=object))
    return rows, codes, distinct.tolist()


def _text_label(part: str):
    """A part of a text cell as the per-row code reads it: stripped, None when blank.
    Fallback where a cell may be read otherwise: an invisible label (a cell of invisible
    characters only is "no label") or text opening with a bracket (a JSON or Python list)."""
    label = part.strip()
    if not label:
        return None
    if label[0] in "[{" or invisible(label):
        raise Fallback
    return label


def _list_label(value: str):
    """An element of a list cell (JSON lines, parquet): stripped, None when blank."""
    return None if invisible(value) else value.strip()


def label_parts(series: pd.Series, sep: str) -> tuple[np.ndarray, np.ndarray, list]:
    """The labels listed in a label-list column: the row of each label, its code and the
    distinct labels (stripped, as the file spells them), blanks left out. Text cells are
    split at ``sep``; cells that are lists (JSON lines) give their elements. Fallback:
    anything else (numbers, mixed cells, nested lists, text that looks like a list)."""
    cells = series
    array = _arrow_array(series)
    if array is None:
        cells = series.tolist()
        kind = pd.api.types.infer_dtype(cells, skipna=False)
    if array is not None or kind == "string":
        rows, codes, distinct = _split_text(series, sep)
        labels = [_text_label(part) for part in distinct]
    elif set(map(type, cells)) == {list}:
        lengths = np.fromiter(map(len, cells), np.int64, len(cells))
        flat = list(itertools.chain.from_iterable(cells))
        if flat and pd.api.types.infer_dtype(flat, skipna=False) != "string":
            raise Fallback
        rows = np.repeat(np.arange(len(cells)), lengths)
        codes, distinct = pd.factorize(np.asarray(flat, dtype=object))
        distinct = distinct.tolist()
        labels = [_list_label(value) for value in distinct]
    else:
        raise Fallback
    kept = np.array([label is not None for label in labels] + [False], dtype=bool)
    codes = np.asarray(codes, dtype=np.int64)
    keep = kept[codes]
    return rows[keep], codes[keep], labels


def _pairs(table: pd.DataFrame, item_col: str, annotator_col: str):
    """Items and annotators (coordinate values) and each row's (item, annotator) pair as
    one number, ``item * n_annotators + annotator``."""
    items, item_codes = id_codes(table[item_col])
    annotators, annotator_codes = id_codes(table[annotator_col])
    return items, annotators, item_codes * len(annotators) + annotator_codes


def _label_index(labels: list, universe, sep: str | None) -> tuple[np.ndarray, list]:
    """The position in the universe of each distinct label (-1 for None: a blank) and the
    universe: declared (spelled as the labels are), else the sorted labels used. Fallback
    where the per-row code refuses: a label outside the universe, duplicates in it, and
    for label lists (``sep`` given) no label at all or labels joined by another
    separator."""
    used = list(dict.fromkeys(v for v in labels if v is not None))  # each one is used
    spelling = label_spelling(list(dict.fromkeys(used + list(universe or []))))
    if spelling is not None:
        used = list(dict.fromkeys(spelling[v] for v in used))
        labels = [None if v is None else spelling[v] for v in labels]
        universe = None if universe is None else [spelling[v] for v in universe]
    if universe is None:
        if sep is not None and not used:
            raise Fallback  # no label anywhere: the per-row code asks for the universe
        strings = {v for v in used if isinstance(v, str)}
        if sep is not None and any(joined_labels(v, strings, sep) is not None for v in used):
            raise Fallback
        try:
            universe = sorted(used)
        except TypeError:
            raise Fallback from None
    elif len(set(universe)) != len(universe) or not set(used) <= set(universe):
        raise Fallback
    index = {v: j for j, v in enumerate(universe)}
    return np.array([index.get(v, -1) for v in labels] + [-1], dtype=np.int64), universe


def sets_decisions(table: pd.DataFrame, columns: tuple[str, str, str], universe, sep: str):
    """``(values, items, annotators, labels)`` of a "sets" table, as the per-row reader
    builds them (files._ids, files._sets, records.from_sets): ``values`` uint8 (item,
    annotator, label), float with NaN where an (item, annotator) row is absent."""
    item_col, annotator_col, column = columns
    items, annotators, pairs = _pairs(table, item_col, annotator_col)
    seen = np.bincount(pairs, minlength=len(items) * len(annotators))
    if len(seen) and seen.max() > 1:
        raise Fallback  # a duplicated (item, annotator) row
    rows, codes, labels = label_parts(table[column], sep)
    label_of_code, universe = _label_index(labels, universe, sep)
    n_labels = len(universe)
    values = np.zeros(len(seen) * n_labels, dtype=np.uint8)
    ones = pairs[rows] * n_labels + label_of_code[codes]
    values[ones] = 1
    if np.count_nonzero(values) != len(ones):
        raise Fallback  # a label listed twice in a cell
    values = values.reshape(len(items), len(annotators), n_labels)
    absent = seen == 0
    if absent.any():
        values = values.astype(np.float64)
        values.reshape(len(seen), n_labels)[absent] = np.nan
    return values, items, annotators, universe


def _text_codes(series: pd.Series) -> tuple[np.ndarray, list]:
    """Each row's code and the distinct values of a column of text (Fallback otherwise)."""
    array = _arrow_array(series)
    if array is not None:
        import pyarrow.compute as compute

        if array.null_count:
            raise Fallback
        encoded = compute.dictionary_encode(array)
        return encoded.indices.to_numpy().astype(np.int64), encoded.dictionary.to_pylist()
    codes, distinct = pd.factorize(series, use_na_sentinel=True)
    distinct = distinct.tolist()
    if (len(codes) and codes.min() < 0) or pd.api.types.infer_dtype(
            distinct, skipna=False) not in ("string", "empty"):
        raise Fallback
    return codes.astype(np.int64, copy=False), distinct


def _long_label(value: str) -> str:
    if invisible(value):
        raise Fallback  # an empty label
    return value.strip()


def long_decisions(table: pd.DataFrame, columns: tuple, universe, true_words, false_words):
    """``(values, items, annotators, labels)`` of a "long" table (text cells), as the per-row
    reader builds them (files._long, records.from_long): without a value column every row
    is a positive decision of a complete design; with one, its words (``true_words``,
    ``false_words``) give 1 or 0 and an absent row is NaN."""
    item_col, annotator_col, label_col, value_col = columns
    items, annotators, pairs = _pairs(table, item_col, annotator_col)
    codes, distinct = _text_codes(table[label_col])
    label_of_code, universe = _label_index(list(map(_long_label, distinct)), universe, None)
    n_labels = len(universe)
    cells = pairs * n_labels + label_of_code[codes]
    shape = (len(items), len(annotators), n_labels)
    seen = np.zeros(np.prod(shape, dtype=np.int64), dtype=np.uint8)
    seen[cells] = 1
    if np.count_nonzero(seen) != len(cells):
        raise Fallback  # a duplicated (item, annotator, label) row
    if value_col is None:
        return seen.reshape(shape), items, annotators, universe
    codes, distinct = _text_codes(table[value_col])
    words = [v.strip().lower() for v in distinct]
    if not all(w in true_words or w in false_words for w in words):
        raise Fallback  # not 0 or 1
    word_values = np.array([1.0 if w in true_words else 0.0 for w in words] + [np.nan])
    values = np.full(len(seen), np.nan)
    values[cells] = word_values[codes]
    return values.reshape(shape), items, annotators, universe
