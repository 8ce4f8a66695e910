"""Getting annotations in: label-set records and long tables -> item x annotator x label.

A decision that was not made (an item an annotator never saw) becomes NaN; an annotation with
no label selected is an empty set (all 0). The declared label universe is kept even where a
label is never used, because dropping unused labels changes AC1 and PB (paper Table 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
import xarray as xr


def _label_set(entry, sep: str, where: str) -> list | None:
    """A record's labels as a list, or None for a missing annotation."""
    if entry is None or (isinstance(entry, float) and np.isnan(entry)):
        return None
    if isinstance(entry, str):
        return [part.strip() for part in entry.split(sep) if part.strip()]
    if isinstance(entry, (list, tuple, set, frozenset, np.ndarray, pd.Series)):
        return list(entry)
    raise TypeError(f"labels at {where} must be a list, set or {sep!r}-separated string, "
                    f"got {type(entry).__name__}: {entry!r}")


def _coordinate(values):
    """A coordinate's values as a list, or a variable as it is (the whole-column reader's
    ids, :func:`xr_agreement.io.vectorised.id_coordinate`)."""
    return values if isinstance(values, xr.Variable) else list(values)


def _grid(values: np.ndarray, items, annotators, labels, item, annotator, label, label_dtype):
    if values.dtype.kind == "f" and not np.isnan(values).any():
        values = values.astype(np.uint8)
    return xr.DataArray(
        values,
        dims=(item, annotator, label),
        coords={item: _coordinate(items), annotator: _coordinate(annotators),
                label: np.asarray(list(labels), dtype=label_dtype)},
        name="decision",
    )


def _universe(used: Sequence, labels, where_of) -> list:
    if labels is None:
        try:
            return sorted(set(used))
        except TypeError:
            return list(dict.fromkeys(used))
    universe = list(labels)
    if len(set(universe)) != len(universe):
        raise ValueError("the declared label universe has duplicates")
    declared = set(universe)
    for value in used:
        if value not in declared:
            raise ValueError(f"label {value!r} at {where_of(value)} is not in the declared "
                             f"label universe ({len(universe)} labels)")
    return universe


def _table_columns(table: pd.DataFrame, **given) -> list[str]:
    """The columns named by ``given`` (keyword -> column name, None for an unused one), in
    order; a ValueError names the keyword and column that is missing and the columns
    present."""
    for keyword, column in given.items():
        if column is not None and column not in table.columns:
            raise ValueError(f"{keyword}={column!r}: no such column; the table has columns "
                             f"{list(table.columns)}")
    return [column for column in given.values() if column is not None]


def from_sets(
    records,
    *,
    labels: Sequence | None = None,
    item_column: str = "item",
    annotator_column: str = "annotator",
    labels_column: str = "labels",
    sep: str = ";",
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
) -> xr.DataArray:
    """Decisions from (item, annotator, set of labels) records.

    Parameters
    ----------
    records : pandas.DataFrame or iterable of (item, annotator, labels)
        One record per annotation. ``labels`` is a list/set of labels or a ``sep``-separated
        string; an empty set (or empty string) means no label selected; None/NaN means the
        annotation is missing. An (item, annotator) pair without a record is missing too.
    labels : sequence, optional
        The declared label universe, kept in this order even where a label is never used.
        Without it, the sorted set of labels used.
    item_column, annotator_column, labels_column : str
        Column names of item, annotator and label set in a DataFrame.
    sep : str
        Separator of labels given as strings.
    item, annotator, label : str
        Names of the output dims.

    Returns
    -------
    xarray.DataArray
        uint8 0/1 decisions (item, annotator, label), or float with NaN where annotations are
        missing.

    Raises
    ------
    ValueError
        Duplicate (item, annotator) records; a label outside the declared universe; a
        column of a DataFrame that is not there.

    Examples
    --------
    >>> import xr_agreement
    >>> da = xr_agreement.from_sets(
    ...     [("s1", "ann", {"a"}), ("s1", "bob", {"a", "b"}), ("s2", "ann", set()),
    ...      ("s2", "bob", "b")],
    ...     labels=["a", "b", "c"],
    ... )
    >>> da.sel(item="s1").values
    array([[1, 0, 0],
           [1, 1, 0]], dtype=uint8)
    >>> round(float(da.agreement.mla().observed), 4)
    0.6667
    """
    if isinstance(records, pd.DataFrame):
        columns = _table_columns(records, item_column=item_column,
                                 annotator_column=annotator_column, labels_column=labels_column)
        rows = list(records[columns].itertuples(index=False, name=None))
    elif isinstance(records, Iterable):
        rows = [tuple(r) for r in records]
    else:
        raise TypeError(f"records must be a DataFrame or an iterable of tuples, got "
                        f"{type(records).__name__}")
    if not rows:
        raise ValueError("no records")
    sets = {}
    for number, row in enumerate(rows):
        if len(row) != 3:
            raise ValueError(f"record {number} has {len(row)} fields, expected (item, "
                             "annotator, labels)")
        key = (row[0], row[1])
        where = f"record {number} (item={row[0]!r}, annotator={row[1]!r})"
        if key in sets:
            raise ValueError(f"duplicate annotation: {where} appears more than once")
        sets[key] = (_label_set(row[2], sep, where), where)
    used_where = {}
    for chosen, where in sets.values():
        for value in chosen or ():
            used_where.setdefault(value, where)
    universe = _universe(list(used_where), labels, used_where.get)
    items = list(dict.fromkeys(k[0] for k in sets))
    annotators = list(dict.fromkeys(k[1] for k in sets))
    item_index = {v: i for i, v in enumerate(items)}
    annotator_index = {v: i for i, v in enumerate(annotators)}
    label_index = {v: i for i, v in enumerate(universe)}
    values = np.full((len(items), len(annotators), len(universe)), np.nan)
    for (it, an), (chosen, _) in sets.items():
        if chosen is None:
            continue
        cell = values[item_index[it], annotator_index[an]]
        cell[:] = 0
        for value in chosen:
            cell[label_index[value]] = 1
    return _grid(values, items, annotators, universe, item, annotator, label,
                 object if any(isinstance(v, str) for v in universe) else None)


def from_long(
    table: pd.DataFrame,
    *,
    value_column: str | None = None,
    labels: Sequence | None = None,
    item_column: str = "item",
    annotator_column: str = "annotator",
    label_column: str = "label",
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
) -> xr.DataArray:
    """Decisions from a long table: one row per (item, annotator, label).

    Parameters
    ----------
    table : pandas.DataFrame
        With ``value_column=None``, each row is one positive decision and every annotator
        seen in the table is taken to have annotated every item seen (a complete design).
        With a ``value_column`` of 0/1, each row is one decision and an absent row is
        missing (NaN).
    value_column : str, optional
        Name of the 0/1 column.
    labels : sequence, optional
        The declared label universe (see :func:`from_sets`).
    item_column, annotator_column, label_column : str
        Column names of item, annotator and label in ``table``.
    item, annotator, label : str
        Names of the output dims.

    Returns
    -------
    xarray.DataArray

    Raises
    ------
    ValueError
        Missing columns, duplicate rows, values other than 0/1, labels outside the universe.

    Examples
    --------
    >>> import pandas as pd, xr_agreement
    >>> table = pd.DataFrame({"item": [1, 1, 2], "annotator": ["a", "b", "a"],
    ...                       "label": ["x", "x", "y"]})
    >>> xr_agreement.from_long(table).sel(item=2).values
    array([[0, 1],
           [0, 0]], dtype=uint8)
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas.DataFrame, got {type(table).__name__}")
    columns = _table_columns(table, item_column=item_column, annotator_column=annotator_column,
                             label_column=label_column)
    _table_columns(table, value_column=value_column)
    if table.empty:
        raise ValueError("the table has no rows")
    item_col, annotator_col, label_col = columns
    duplicated = table.duplicated(subset=columns)
    if duplicated.any():
        row = table[duplicated].iloc[0]
        raise ValueError(f"duplicate row {duplicated.values.argmax()}: item={row[item_col]!r}, "
                         f"annotator={row[annotator_col]!r}, label={row[label_col]!r}")
    first_row = {}
    for position, lab in enumerate(table[label_col].tolist()):
        first_row.setdefault(lab, position)
    universe = _universe(list(first_row), labels, lambda v: f"row {first_row[v]}")
    items = list(pd.unique(table[item_col]))
    annotators = list(pd.unique(table[annotator_col]))
    i = pd.Index(items).get_indexer(table[item_col])
    a = pd.Index(annotators).get_indexer(table[annotator_col])
    j = pd.Index(universe).get_indexer(table[label_col])
    if value_column is None:
        values = np.zeros((len(items), len(annotators), len(universe)))
        values[i, a, j] = 1
    else:
        column = pd.to_numeric(table[value_column], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isin(column, (0.0, 1.0))
        if bad.any():
            position = int(bad.argmax())
            raise ValueError(f"column {value_column!r} must be 0 or 1; row {position} has "
                             f"{table[value_column].tolist()[position]!r}")
        values = np.full((len(items), len(annotators), len(universe)), np.nan)
        values[i, a, j] = column
    return _grid(values, items, annotators, universe, item, annotator, label,
                 object if any(isinstance(v, str) for v in universe) else None)
