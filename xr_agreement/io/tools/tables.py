"""Crowd tables (one row per item x worker with a label column) and wide tables (one 0/1
column per label).

Crowd tables, from crowd-kit's documentation (https://toloka.ai/docs/crowd-kit/: "a
pandas.DataFrame with columns task, worker, label") and Toloka's assignment export (TSV with
``INPUT:<field>``, ``OUTPUT:<field>``, ``ASSIGNMENT:task_id``, ``ASSIGNMENT:worker_id``,
``ASSIGNMENT:status`` of ``ACTIVE``, ``SUBMITTED``, ``ACCEPTED``, ``REJECTED``, ``SKIPPED``,
``EXPIRED``): the common names of the item, worker and label columns are recognised
(``task``, ``HITId``, ``_input_hash``, ``worker``, ``WorkerId``, ``_annotator_id``,
``completed_by``, ``rater_id``, ...). Only ``SUBMITTED``, ``ACCEPTED`` (and ``APPROVED``)
assignments are answers; a Toloka ``REJECTED`` assignment is dropped "rejected", ``ACTIVE``
(not yet submitted) / ``SKIPPED`` / ``EXPIRED`` dropped "active" / "skipped" / "expired"; any
other status is an error naming its row. A label cell holding a
JSON or Python list is parsed; other text is split at ``sep`` (";" unless given).

Wide tables, the layout of GoEmotions' raw ratings (``goemotions_1.csv``: ``text``, ``id``,
``author``, ..., ``rater_id``, ``example_very_unclear``, then one 0/1 column per emotion;
https://github.com/google-research/google-research/tree/master/goemotions) and of many
dataset hubs: the label columns are those named by ``labels=``, else every remaining column
whose cells are all 0/1 (``true``/``false``). A flag column meaning "no decision"
(``example_very_unclear``, ``unclear``, ``skipped``) makes a row with a true flag no decision,
dropped "unclear" / "skipped". A blank label cell is an undecided label.

Neither layout says whether one label or several were allowed: a table whose every
annotation holds exactly one label is read as ratings (item, annotator), else as label sets.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..files import AnnotationFileError, ids_as_coordinate, read_delimited
from ..._core.arrays import _plain
from ._common import (Annotation, Dropped, Where, blank, build, cell_labels, line_of,
                      scalar_id)

CROWD_ITEMS = ("task", "task_id", "assignment:task_id", "hitid", "_input_hash", "item",
               "item_id", "unit_id", "example_id", "id")
CROWD_WORKERS = ("worker", "worker_id", "assignment:worker_id", "workerid", "_annotator_id",
                 "completed_by", "rater_id", "annotator", "annotator_id", "rater", "user_id",
                 "user")
CROWD_LABELS = ("label", "labels", "answer", "result", "output", "category")
TOLOKA_STATUS = "assignment:status"
# statuses of a submitted answer; the others are no decision, dropped with their reason
TOLOKA_ANSWERED = ("SUBMITTED", "ACCEPTED", "APPROVED")
TOLOKA_DROPPED = {"REJECTED": "rejected", "ACTIVE": "active", "SKIPPED": "skipped",
                  "EXPIRED": "expired"}
FLAG_COLUMNS = {"example_very_unclear": "unclear", "very_unclear": "unclear",
                "unclear": "unclear", "skipped": "skipped", "skip": "skipped"}
TRUE, FALSE = {"1", "1.0", "true", "yes"}, {"0", "0.0", "false", "no"}


def read_table(path, nrows: int | None = None) -> tuple[pd.DataFrame, int]:
    """A CSV / TSV / parquet table as text cells, and the line of data row 1 (0: parquet);
    ``nrows``: only the first rows (the first row group of a parquet file)."""
    name = os.fspath(path).lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        name = name.removesuffix(suffix)
    if name.endswith((".parquet", ".pq")):
        try:
            if nrows is None:
                table = pd.read_parquet(path)
            else:
                import pyarrow.parquet as pq

                table = pq.ParquetFile(path).read_row_group(0).to_pandas().head(nrows)
        except Exception as error:  # noqa: BLE001 - pyarrow raises several unrelated types
            raise AnnotationFileError(f"cannot read parquet: {error}", path=path) from None
        table.columns = [str(c) for c in table.columns]
        return table, 0
    sep = "\t" if name.endswith((".tsv", ".tab")) or _tab_separated(path) else ","
    table = read_delimited(path, sep, nrows=nrows)
    if table.empty:
        raise AnnotationFileError("the file has a header but no data rows", path=path, line=2)
    table.columns = [str(c).strip() for c in table.columns]
    return table, 2


def _tab_separated(path) -> bool:
    """Whether a ".csv" file is tab-separated: Label Studio 1.23 (its server and its SDK)
    names the TSV export ".csv". A header with a tab and no comma is read as one column by
    the CSV rules, which no export of ours or of a tool has."""
    header = read_delimited(path, ",", nrows=0).columns
    return len(header) == 1 and "\t" in header[0]


def find_column(table, given, candidates, role, where, required=True, prefix=None):
    """The one column named ``given`` or like one of ``candidates`` (case-insensitive)."""
    if given is not None:
        if given not in table.columns:
            raise where(f"{role} column {given!r} not found; the file has columns "
                        f"{list(table.columns)}", column=given)
        return given
    lower = {c.lower(): c for c in table.columns}
    found = [lower[c] for c in candidates if c in lower]
    if prefix:
        found += [c for c in table.columns if c.lower().startswith(prefix) and c not in found]
    if len(found) > 1:
        raise where(f"several columns could be the {role} column: {found}; name one "
                    f"({role}_column=..., --{role}-column)")
    if not found:
        if required:
            raise where(f"no {role} column: expected one named like {list(candidates[:5])} "
                        f"(or name it: {role}_column=..., --{role}-column); the file has "
                        f"columns {list(table.columns)}", column=role)
        return None
    return found[0]


def _ids(table, column, where):
    values = []
    for position, value in enumerate(table[column].tolist()):
        if blank(value):
            raise where("empty cell: every row needs an item and an annotator", position + 1,
                        column, line_of(table, position))
        # a list (parquet) or NaN-like id is refused naming its row, never "unhashable"
        values.append(scalar_id(_plain(value), where, position + 1, column))
    return ids_as_coordinate(values)  # stripped, int: only when no two ids merge


def read_crowd(path, *, universe=None, sep=None, item_column=None, annotator_column=None,
               labels_column=None, item="item", annotator="annotator", label="label",
               layout="auto", **_):
    """Decisions from a crowd table (see the module docstring)."""
    sep = ";" if sep is None else sep
    table, first_line = read_table(path)
    where = Where(path, line_offset=first_line - 1 if first_line else None,
                  lines=table.attrs.get("lines"))
    item_col = find_column(table, item_column, CROWD_ITEMS, "item", where, required=False)
    if item_col is None:  # Toloka without task ids: the one INPUT: column identifies the task
        item_col = find_column(table, None, (), "item", where, prefix="input:")
    annotator_col = find_column(table, annotator_column, CROWD_WORKERS, "annotator", where)
    labels_col = find_column(table, labels_column, CROWD_LABELS, "labels", where,
                             prefix="output:")
    status_col = {c.lower(): c for c in table.columns}.get(TOLOKA_STATUS)
    items = _ids(table, item_col, where)
    workers = _ids(table, annotator_col, where)
    dropped, annotations = Dropped(), []
    for position, cell in enumerate(table[labels_col].tolist()):
        row, line = position + 1, line_of(table, position)
        who = str(workers[position])
        if status_col is not None:
            status = str(table[status_col].iat[position]).strip().upper()
            if status in TOLOKA_DROPPED:
                dropped.add(TOLOKA_DROPPED[status], who)
                annotations.append(Annotation(items[position], who, None, row=row, line=line))
                continue
            if status not in TOLOKA_ANSWERED:
                raise where(f"{status_col} must be one of "
                            f"{list(TOLOKA_ANSWERED) + list(TOLOKA_DROPPED)}, got "
                            f"{table[status_col].iat[position]!r}", row, status_col, line)
        chosen = cell_labels(cell, sep, where, row, labels_col)
        annotations.append(Annotation(items[position], who, list(dict.fromkeys(chosen)),
                                      row=row, line=line, column=labels_col))
    return build(annotations, reader="crowd", dropped=dropped, where=where, universe=universe,
                 item=item, annotator=annotator, label=label, sep_in_use=sep,
                 layout=layout)


def _binary(value):
    """1.0, 0.0, "blank" or None (not a 0/1 cell: text, a list, an object)."""
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if blank(value) or value is pd.NA:
        return "blank"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value) if value in (0, 1) else None
    if not isinstance(value, str):
        return None
    word = value.strip().lower()
    return 1.0 if word in TRUE else 0.0 if word in FALSE else None


def read_wide(path, *, universe=None, item_column=None, annotator_column=None, item="item",
              annotator="annotator", label="label", layout="auto", **_):
    """Decisions from a wide table, one 0/1 column per label (see the module docstring)."""
    table, first_line = read_table(path)
    where = Where(path, line_offset=first_line - 1 if first_line else None,
                  lines=table.attrs.get("lines"))
    item_col = find_column(table, item_column, CROWD_ITEMS, "item", where)
    annotator_col = find_column(table, annotator_column, CROWD_WORKERS, "annotator", where)
    flags = [c for c in table.columns if c.lower() in FLAG_COLUMNS]
    rest = [c for c in table.columns if c not in (item_col, annotator_col, *flags)]
    if universe is not None:
        missing = [v for v in universe if v not in table.columns]
        if missing:
            raise where(f"declared labels without a column: {missing}", column=missing[0])
        label_cols = list(universe)
    else:
        label_cols = []
        for column in rest:
            values = [_binary(v) for v in table[column].tolist()]
            binary = sum(v in (0.0, 1.0) for v in values)
            bad = [i for i, v in enumerate(values) if v is None]
            if binary and not bad:
                label_cols.append(column)
            elif bad and binary >= len(bad):  # mostly 0/1, a bad cell (all blank: no role)
                row = bad[0] + 1
                raise where(f"the column looks like a 0/1 label column but holds "
                            f"{table[column].iat[bad[0]]!r}; fix the cell, or name the "
                            "label columns (labels=..., --labels FILE)", row, column,
                            line_of(table, bad[0]))
        if not label_cols:
            raise where("no 0/1 label columns: a wide table has one 0/1 column per label "
                        "(or name them: labels=..., --labels FILE)")
    items = _ids(table, item_col, where)
    workers = _ids(table, annotator_col, where)
    dropped, annotations = Dropped(), []
    for position in range(len(table)):
        row, line = position + 1, line_of(table, position)
        who = str(workers[position])
        for column in flags:  # a flag that is no yes/no word must not read as "not flagged"
            if _binary(table[column].iat[position]) is None:
                raise where(f"the flag column must hold 0/1 or true/false, got "
                            f"{table[column].iat[position]!r}", row, column, line)
        flagged = [c for c in flags if _binary(table[c].iat[position]) == 1.0]
        if flagged:
            dropped.add(FLAG_COLUMNS[flagged[0].lower()], who)
            annotations.append(Annotation(items[position], who, None, row=row, line=line))
            continue
        chosen, zeros = [], []
        for column in label_cols:
            value = _binary(table[column].iat[position])
            if value is None:
                raise where(f"a label column must hold 0 or 1, got "
                            f"{table[column].iat[position]!r}", row, column, line)
            if value == 1.0:
                chosen.append(column)
            elif value == 0.0:
                zeros.append(column)
        annotations.append(Annotation(items[position], who, chosen, zeros, row=row, line=line,
                                      column=item_col))
    return build(annotations, reader="wide", dropped=dropped, where=where,
                 universe=label_cols, item=item, annotator=annotator, label=label,
                 sep_in_use=False, layout=layout)
