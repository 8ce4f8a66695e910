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
import functools
import gc
import io
import itertools
import json
import mmap
import operator
import os
import re

import numpy as np
import pandas as pd
import xarray as xr

from .._core.threads import _pool_map
from .cells import blank, ids_as_coordinate, invisible, joined_labels, label_spelling


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
    if len(sep) != 1 or not sep.isascii() or sep in '"\r\n':
        return None
    separators = _quote_free_separators(data, sep)
    if separators is None:
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
    if (table.empty or not isinstance(table.index, pd.RangeIndex)
            or separators != (len(table) + 1) * (len(header) - 1)):
        return None
    return header, table


# Bytes per block of _quote_free_separators: a few blocks fit in the L2 cache
CHECK_BLOCK = 1 << 18


def _quote_free_separators(data, sep: str) -> int | None:
    """The number of ``sep`` bytes in ``data`` (bytes or a mapped file), or None when it
    holds a quote, a NUL or a lone carriage return. One pass in blocks, each looked at
    while in cache, rather than one pass over the whole file per question: 9 ms -> 5 ms
    at 26 MB."""
    view = np.frombuffer(data, np.uint8)
    found = np.empty(min(len(data), CHECK_BLOCK), dtype=bool)
    separators, returns = 0, False
    for start in range(0, len(data), CHECK_BLOCK):
        stop = min(start + CHECK_BLOCK, len(data))
        if data.find(b'"', start, stop) >= 0 or data.find(b"\x00", start, stop) >= 0:
            return None
        returns = returns or data.find(b"\r", start, stop) >= 0
        block = found[:stop - start]
        np.equal(view[start:stop], ord(sep), out=block)  # numpy counts 5x as fast as bytes
        separators += int(np.count_nonzero(block))
    if returns and bytes(data).count(b"\r") != bytes(data).count(b"\r\n"):
        return None
    return separators


def file_bytes(path, open_text):
    """The bytes of a CSV file as UTF-8 without a BOM: an uncompressed file mapped in
    memory (:func:`_mapped`) or read as it is, else decompressed and decoded by
    ``open_text`` (files._open_text); None when reading fails (the csv module's reading
    then raises the error the reader names)."""
    try:
        if os.fspath(path).lower().endswith((".gz", ".bz2", ".xz", ".zip", ".zst")):
            with open_text(path) as handle:
                return handle.read().encode()
        with open(path, "rb") as handle:
            mapped = _mapped(handle)
            return mapped if mapped is not None else \
                handle.read().removeprefix(b"\xef\xbb\xbf")
    except Exception:  # noqa: BLE001 - each archive format raises its own types
        return None


def _mapped(handle):
    """The file's pages mapped read-only, or None (a BOM, an empty file, no mmap). Reading
    26 MB into a new bytes object cost 3 ms in a loop but 15-19 ms in a reading that had
    just freed its memory (a page fault per 4 KiB of fresh memory); mapping the cached
    pages costs about 1 ms. Those bytes are only looked at (quote_free_table), and the
    mapping ends with the object."""
    try:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (ValueError, OSError, AttributeError):
        return None
    if mapped[:3] == b"\xef\xbb\xbf":
        mapped.close()
        return None
    return mapped


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


def _arrow_chunks(series: pd.Series) -> list | None:
    """The Arrow arrays holding an Arrow-backed text column (pandas' parallel reading
    gives one per thread's part of the file), or None."""
    if not (isinstance(series.dtype, pd.ArrowDtype)
            or getattr(series.dtype, "storage", None) == "pyarrow"):
        return None
    import pyarrow

    array = pyarrow.array(series)
    chunks = array.chunks if isinstance(array, pyarrow.ChunkedArray) else [array]
    if not all(pyarrow.types.is_string(chunk.type) or pyarrow.types.is_large_string(
            chunk.type) for chunk in chunks):
        return None
    return chunks


def _arrow_array(series: pd.Series):
    """The Arrow array of an Arrow-backed text column (one chunk), or None."""
    import pyarrow

    chunks = _arrow_chunks(series)
    if chunks is None:
        return None
    if len(chunks) == 1:
        return chunks[0]
    return pyarrow.chunked_array(chunks).combine_chunks()


def id_codes(series: pd.Series) -> tuple[list, np.ndarray]:
    """The ids of a column as coordinate values (:func:`ids_as_coordinate`), in the order
    they first appear, and each row's position among them. Fallback: a blank or missing
    id, or ids other than all text or all integers. Ids of an Arrow column that are kept
    as they are come as that Arrow text (:func:`_arrow_id_codes`, :func:`id_coordinate`)."""
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


# ASCII bytes Python's str.strip() removes, and integer text as cells._INTEGER reads it in
# ASCII text without a trailing newline (which the blanks' test has ruled out)
_BLANK_BYTES = np.isin(np.arange(256), [9, 10, 11, 12, 13, 28, 29, 30, 31, 32])
_ASCII_INTEGER = r"^[+-]?[0-9]+$"


def _text_buffers(array) -> tuple[np.ndarray, np.ndarray]:
    """The offsets (one more than the strings) and the bytes of an Arrow text array."""
    import pyarrow

    _, offsets, data = array.buffers()
    width = 8 if pyarrow.types.is_large_string(array.type) else 4
    offsets = np.frombuffer(offsets, np.dtype(f"int{width * 8}"), len(array) + 1,
                            array.offset * width)
    return offsets, np.zeros(0, np.uint8) if data is None else np.frombuffer(data, np.uint8)


def _plain_ids(distinct) -> bool:
    """True when Arrow text ids are ASCII, none empty nor with blanks around it, and not all
    integer text: ids that :func:`ids_as_coordinate` keeps as they are. First and last bytes
    are looked up in a table rather than matched by a regex (12 ms -> 1 ms at 10^5 ids)."""
    import pyarrow.compute as compute

    if not len(distinct) or not compute.all(compute.string_is_ascii(distinct)).as_py():
        return False
    offsets, data = _text_buffers(distinct)
    if np.diff(offsets).min() == 0:
        return False
    if _BLANK_BYTES[data[offsets[:-1]]].any() or _BLANK_BYTES[data[offsets[1:] - 1]].any():
        return False
    return not (re.match(_ASCII_INTEGER, distinct[0].as_py()) and compute.all(
        compute.match_substring_regex(distinct, _ASCII_INTEGER)).as_py())


def _arrow_id_codes(array) -> tuple:
    """:func:`id_codes` of an Arrow text column. Ids that :func:`ids_as_coordinate` keeps
    as they are (:func:`_plain_ids`: document and annotator names) stay Arrow text, made
    a coordinate by :func:`id_coordinate`; others go through ids_as_coordinate."""
    import pyarrow.compute as compute

    if array.null_count:
        raise Fallback
    encoded = compute.dictionary_encode(array)
    distinct = encoded.dictionary
    codes = encoded.indices.to_numpy().astype(np.int64, copy=False)
    if _plain_ids(distinct):
        return distinct, codes
    distinct = distinct.to_pylist()
    if any(map(invisible, distinct)):
        raise Fallback
    return ids_as_coordinate(distinct), codes


def id_coordinate(dim: str, ids):
    """Ids from :func:`id_codes` as the coordinate of ``dim``: a list as it is (xarray
    makes its array and index), plain Arrow text (ASCII) as the index pandas makes of that
    list's array, in a variable of the same dtype (``<U`` + longest id), without a Python
    string per id: 1 ms against 17-25 ms for the 10^5 items of benchmarks/bench_read.py."""
    if isinstance(ids, list):
        return ids
    offsets, _ = _text_buffers(ids)
    text = np.dtype(f"<U{int(np.diff(offsets).max())}")
    index = pd.Index(ids.to_pandas(), dtype=_text_index_dtype())
    return xr.indexes.PandasIndex(index, dim, coord_dtype=text).create_variables()[dim]


@functools.cache
def _text_index_dtype():
    """The dtype of the index pandas makes of an array of text (str, or object before
    pandas 3)."""
    return pd.Index(np.array(["a"])).dtype


def _together(tasks: list) -> list:
    """The results of ``tasks`` (functions of no argument), run at once in the process's
    thread pool: Arrow's kernels and numpy's release the GIL, so the ids and the pieces of a
    label-list column are read on every core (the sets CSV of benchmarks/bench_read.py on
    2 cores, other cores idle: 113 -> 68 ms for its ids and labels, medians)."""
    return _pool_map(operator.call, tasks)


# Rows per piece of an Arrow label-list column, each split and encoded in a task of its own
# (the pieces' few distinct labels are merged after)
PIECE_ROWS = 1 << 17


def _arrow_labels(array, sep: str) -> tuple[np.ndarray, np.ndarray, list]:
    """:func:`_label_tasks`' reading of a piece of an Arrow text column."""
    import pyarrow.compute as compute

    split = compute.split_pattern(array, sep)
    encoded = compute.dictionary_encode(compute.list_flatten(split))
    return (compute.list_value_length(split).to_numpy(), encoded.indices.to_numpy(),
            list(map(_text_label, encoded.dictionary.to_pylist())))


def _split_text(cells: list, sep: str) -> tuple[np.ndarray, np.ndarray, list]:
    """The parts of text cells split at ``sep``: the number of parts of each cell, each
    part's code, the distinct parts (unstripped)."""
    if "\n" in sep:
        raise Fallback
    # one string of every cell, split once: cells that hold a newline are read row by row
    joined = "\n".join(cells)
    if joined.count("\n") != len(cells) - 1:
        raise Fallback
    counts = np.fromiter(map(operator.methodcaller("count", sep), cells), np.int64, len(cells))
    parts = joined.replace("\n", sep).split(sep)
    codes, distinct = pd.factorize(np.asarray(parts, dtype=object))
    return counts + 1, codes, distinct.tolist()


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


def _object_labels(cells: list, sep: str) -> tuple[np.ndarray, np.ndarray, list]:
    """:func:`_label_tasks`' reading of a column of Python objects."""
    kind = pd.api.types.infer_dtype(cells, skipna=False)
    if kind == "string":
        lengths, codes, distinct = _split_text(cells, sep)
        return lengths, codes, list(map(_text_label, distinct))
    if set(map(type, cells)) != {list}:
        raise Fallback
    lengths = np.fromiter(map(len, cells), np.int64, len(cells))
    flat = list(itertools.chain.from_iterable(cells))
    if flat and pd.api.types.infer_dtype(flat, skipna=False) != "string":
        raise Fallback
    codes, distinct = pd.factorize(np.asarray(flat, dtype=object))
    return lengths, codes, list(map(_list_label, distinct.tolist()))


def _label_tasks(series: pd.Series, sep: str) -> list:
    """Tasks reading the labels listed in a label-list column, one per piece of the column
    (at most :data:`PIECE_ROWS` rows of one of the Arrow arrays of the column, else the
    whole column), each returning ``(lengths, codes, labels)``: the number of parts of
    each cell, each part's code, and the distinct labels the codes stand for, as the
    per-row code reads them (stripped, None when blank). Text cells are split at ``sep``;
    cells that are lists (JSON lines) give their elements. Fallback: anything else
    (numbers, mixed cells, nested lists, text that looks like a list)."""
    chunks = _arrow_chunks(series)
    if chunks is None:
        return [functools.partial(_object_labels, series.tolist(), sep)]
    if any(chunk.null_count for chunk in chunks):
        raise Fallback
    # the pieces of each chunk as they are (joining the 14 MB of the labels of
    # benchmarks/bench_read.py into one array took 2-3 ms)
    return [functools.partial(_arrow_labels, chunk.slice(start, PIECE_ROWS), sep)
            for chunk in chunks for start in range(0, max(len(chunk), 1), PIECE_ROWS)]


def _listed_cells(pieces: list, pairs: np.ndarray, n_pairs: int, universe, sep: str | None):
    """The decisions grid (``pair * n_labels + label``, one cell more at the end) with a 1
    at each label the pieces of a label-list column list (:func:`_label_tasks`;
    ``pairs``: each row's (item, annotator) pair), the number of labels listed, blanks left
    out, and the universe (:func:`_label_index`, given the distinct labels of every piece in
    the order they first appear). Each piece sets its cells in a task of its own
    (:func:`_mark_piece`; no two write the same cell but the spare one, as the caller has
    refused duplicated (item, annotator) rows): 197 against 210 ms a reading of the sets
    CSV of benchmarks/bench_read.py with one pass over all parts (medians, 2 cores)."""
    distinct = {}
    merged = [[-1 if v is None else distinct.setdefault(v, len(distinct)) for v in labels]
              for _, _, labels in pieces]
    label_of_code, universe = _label_index(list(distinct), universe, sep)
    grid = np.zeros(n_pairs * len(universe) + 1, dtype=np.uint8)
    small = np.int16 if len(universe) < 2**15 else np.int64  # fewer bytes a part
    pair_cells = pairs * len(universe)
    firsts = np.cumsum([0] + [len(lengths) for lengths, _, _ in pieces])
    listed = _together([functools.partial(
        _mark_piece, grid, pair_cells[first:first + len(lengths)], lengths, codes,
        label_of_code[np.array(codes_merged + [-1], dtype=np.int64)].astype(small))
        for (lengths, codes, _), codes_merged, first in zip(pieces, merged, firsts)])
    return grid, sum(listed), universe


def _mark_piece(grid, pair_cells, lengths, codes, positions) -> int:
    """Sets to 1 the grid's cell of each label a piece lists (its rows' ``pair_cells``,
    each cell's number of parts ``lengths``, the parts' ``codes`` and each code's position
    in the universe, -1 for a blank) and returns how many it set; a blank part sets the
    spare last cell instead of being removed from the parts. Each part's pair is its row's
    repeated by the cells' part counts, not gathered at each part's row."""
    parts = positions[codes]
    cells = np.repeat(pair_cells, lengths)
    cells += parts
    blank = parts < 0
    n_blank = int(np.count_nonzero(blank))
    if n_blank:
        cells[blank] = len(grid) - 1
    grid[cells] = 1
    return len(cells) - n_blank


def _pairs(table: pd.DataFrame, item_col: str, annotator_col: str, *tasks):
    """Items and annotators (:func:`id_codes`), each row's (item, annotator) pair as one
    number, ``item * n_annotators + annotator``, and the results of ``tasks``, all run at
    once (:func:`_together`)."""
    (items, item_codes), (annotators, annotator_codes), *results = _together(
        [functools.partial(id_codes, table[item_col]),
         functools.partial(id_codes, table[annotator_col]), *tasks])
    return items, annotators, item_codes * len(annotators) + annotator_codes, *results


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
    annotator, label), float with NaN where an (item, annotator) row is absent; items and
    annotators as :func:`id_codes` gives them (:func:`id_coordinate` makes coordinates of
    them)."""
    item_col, annotator_col, column = columns
    items, annotators, pairs, *pieces = _pairs(table, item_col, annotator_col,
                                               *_label_tasks(table[column], sep))
    seen = np.bincount(pairs, minlength=len(items) * len(annotators))
    if len(seen) and seen.max() > 1:
        raise Fallback  # a duplicated (item, annotator) row
    grid, listed, universe = _listed_cells(pieces, pairs, len(seen), universe, sep)
    n_labels = len(universe)
    values = grid[:-1]
    if np.count_nonzero(values) != listed:
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
    ``false_words``) give 1 or 0 and an absent row is NaN. Items and annotators as in
    :func:`sets_decisions`."""
    item_col, annotator_col, label_col, value_col = columns
    items, annotators, pairs, *texts = _pairs(
        table, item_col, annotator_col, functools.partial(_text_codes, table[label_col]),
        *([] if value_col is None else [functools.partial(_text_codes, table[value_col])]))
    codes, distinct = texts[0]
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
    codes, distinct = texts[1]
    words = [v.strip().lower() for v in distinct]
    if not all(w in true_words or w in false_words for w in words):
        raise Fallback  # not 0 or 1
    word_values = np.array([1.0 if w in true_words else 0.0 for w in words] + [np.nan])
    values = np.full(len(seen), np.nan)
    values[cells] = word_values[codes]
    return values.reshape(shape), items, annotators, universe


def _rating_codes(series: pd.Series) -> tuple[np.ndarray, list]:
    """Each row's code (-1 for an empty cell) and the distinct values of a rating column
    of text (Fallback otherwise)."""
    array = _arrow_array(series)
    if array is not None:
        import pyarrow.compute as compute

        encoded = compute.dictionary_encode(array)
        codes = compute.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
        return codes.astype(np.int64, copy=False), encoded.dictionary.to_pylist()
    codes, distinct = pd.factorize(series, use_na_sentinel=True)
    distinct = distinct.tolist()
    if pd.api.types.infer_dtype(distinct, skipna=False) not in ("string", "empty"):
        raise Fallback
    return codes.astype(np.int64, copy=False), distinct


def single_ratings(table: pd.DataFrame, columns: tuple[str, str, str], categories):
    """``(values, items, annotators, categories)`` of a "single" table (one rating per
    row), as the per-row reader builds them (files._single): a rating stripped, a blank one
    missing, text that is an integer in every row int (:func:`label_spelling`, which
    spells the declared ``categories`` too, returned); ``values`` float
    with NaN when every rating is a number, else object with NaN. Items and annotators
    as in :func:`sets_decisions`. Fallback: a duplicated (item, annotator) row, a rating
    outside the declared ``categories``."""
    item_col, annotator_col, rating_col = columns
    items, annotators, pairs, (codes, distinct) = _pairs(
        table, item_col, annotator_col, functools.partial(_rating_codes, table[rating_col]))
    n_cells = len(items) * len(annotators)
    if len(pairs) and np.bincount(pairs, minlength=n_cells).max() > 1:
        raise Fallback  # a duplicated (item, annotator) row
    ratings = [None if blank(v) else v.strip() for v in distinct]
    # spelled and checked against the declared categories as labels are (its last position
    # stands for a blank part of a label list: not used here)
    position, universe = _label_index(ratings, categories, None)
    rating_of = [universe[j] if j >= 0 else None for j in position[:-1]]
    given = codes >= 0
    given[given] = position[codes[given]] >= 0
    numeric = all(isinstance(v, (int, float)) for v in rating_of if v is not None)
    kind = float if numeric else object
    # missing: NaN in either dtype, as xarray makes of the per-row code's None
    values = np.full(n_cells, np.nan, dtype=kind)
    values[pairs[given]] = np.array(rating_of, dtype=kind)[codes[given]]
    return (values.reshape(len(items), len(annotators)), items, annotators,
            None if categories is None else universe)
