"""Reading annotations: the annotation tools' exports and tables, one entry point.

:func:`read_annotations` tells the tool from the file's content (or is told, ``tool=``) and
hands the file to that tool's reader in :mod:`xr_agreement.io.tools`, or to the generic table
reader of :mod:`xr_agreement.io.files`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import xarray as xr

from .._core.attrs import json_attr, storable_attrs
from . import tools
from .files import AnnotationFileError, read_table_annotations


def read_annotations(
    path,
    layout: str = "auto",
    *,
    tool: str | None = None,
    control: str | None = None,
    format: str | None = None,
    labels: Sequence | str | os.PathLike | None = None,
    sep: str | None = None,
    item_column: str | None = None,
    annotator_column: str | None = None,
    labels_column: str | None = None,
    label_column: str | None = None,
    value_column: str | None = None,
    rating_column: str | None = None,
    empty_list: str | None = None,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    spans_as_label_sets: bool = False,
) -> xr.DataArray:
    """Read annotations from an annotation tool's export or a CSV, TSV, parquet or
    JSON-lines table.

    Parameters
    ----------
    path : str or path-like
        The file (a directory or a .zip of per-annotator files for doccano). For the
        generic table reader its extension gives the format (``.csv``, ``.tsv``/``.tab``,
        ``.parquet``/``.pq``, ``.jsonl``/``.ndjson``/``.json``, optionally compressed, e.g.
        ``.csv.gz``).
    layout : {"auto", "sets", "long", "single"}
        ``"sets"``: one row per (item, annotator) with a label-list column (``sep``-separated
        text, or a list in parquet / JSON-lines); an empty cell is an empty set and an absent
        row a missing annotation. ``"long"``: one row per (item, annotator, label) with a 0/1
        column (``0``/``1``/``true``/``false``); without a value column every row is a
        positive decision and the design is taken to be complete. ``"single"``: one rating
        per (item, annotator). ``"auto"`` picks "long" when label and 0/1 columns are found,
        else "sets" when a label-list column is found.

        A tool's export (``tool`` other than "table") is read with "auto", "sets" or
        "single" ("long" is refused): "sets" reads label sets (item, annotator, label);
        "single" reads ratings (item, annotator), an annotation holding several choices an
        error naming item, annotator, the choices and the row; "auto" reads ratings when
        the export is single-label, else label sets. Single-label is what the tool states
        where it does (a Label Studio labeling config's ``<Choices>`` without
        ``choice="multiple"``, an Argilla question whose responses are labels rather than
        lists, an MTurk ``crowd-classifier``, Prodigy tasks whose ``config.choice_style``
        is "single"), else what the file shows: every annotation chose exactly one category.
        The ratings' attr ``single_label`` says which.
    tool : str, optional
        The tool that wrote the file: "label-studio" (JSON, JSON-min, CSV and TSV
        exports; CONLL2003 carries no annotator and is refused), "prodigy"
        (``db-out`` JSONL), "doccano" (per-user JSONL / CSV, a zip or directory of them),
        "argilla" (v2 flat records, v1 response lists), "mturk" (batch results CSV),
        "crowd" (crowd-kit / Toloka tables), "wide" (one 0/1 column per label) or "table"
        (the generic reader: ``layout``, ``format`` and the column options). By default
        the tool is told from the content when that is unambiguous (else "table"). Each
        tool's reader keeps that tool's meaning of "no decision" (NaN) and documents it:
        see :mod:`xr_agreement.io.tools` and the "From your annotation tool" page. The
        column options apply to "table", "crowd" and "wide"; the other tools' own fields
        are used (a Prodigy file is read as Prodigy whatever the column options say).
    control : str, optional
        The Label Studio control tag (``from_name``), Argilla question or MTurk crowd
        element to read when the file holds several (an error lists them).
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Overrides the extension; the file is then read by the generic table reader.
    labels : sequence or path, optional
        The declared label universe: a list, a text file with one label per line (see
        :func:`xr_agreement.io.files.read_label_universe`; names given there become the ``label_name``
        coordinate) or, for Label Studio, the project's labeling config (XML: the
        ``<Choice value=...>`` of the control read). A label in the annotations outside it
        is an error. Without it, the labels used.
    sep : str, optional
        Separator inside a label-list cell of a text file (";" by default, "#" for doccano
        CSV).
    item_column, annotator_column, labels_column, label_column, value_column, rating_column : str
        Column names; by default recognised from common names (``item``, ``annotator``,
        ``labels``, ``label``, ``value``, ``rating`` and synonyms) when exactly one column fits.
    empty_list : {"missing", "no-label"}, optional
        doccano: what an empty ``label`` list means, an example the member never annotated
        (no decision) or one they looked at and gave no label. Required for a full export
        (approved-only off), where every member's file lists every example.
    item, annotator, label : str
        Names of the output dims.
    spans_as_label_sets : bool, default False
        A Label Studio or doccano export of spans (named entities, highlights) is refused,
        pointing to :func:`xr_agreement.read_spans`: read as label sets, two annotators who
        marked different words with the same type would agree. ``True`` asks for that
        reading by name (each item's set of span labels per annotator).

    Returns
    -------
    xarray.DataArray
        Layouts "sets" and "long": 0/1 decisions (item, annotator, label), float with NaN
        where missing. Layout "single", and a single-label tool export: ratings (item,
        annotator), NaN where missing (a tool's categories are text), attr
        ``single_label`` (one sentence: why the file was read as ratings) and, where a universe
        is declared, ``categories`` (the declared universe; none: the categories used
        count) and, when a labels file names them, ``category_names`` (in the same order;
        label sets get the ``label_name`` coordinate instead).
        Text that is an integer in every row (item ids, labels) becomes int, unless two
        values would merge ("01" and "1" stay two texts). A tool's
        reader returns float decisions with the tool's ids as coordinates (item ids as the
        tool wrote them, annotator ids and labels as text). Attrs ``reader`` (the tool
        name, "table" for the generic reader) and ``dropped`` (reason -> {annotator: number
        of annotations that were not decisions}, e.g. "cancelled", "ignored", "rejected",
        "discarded", "draft", "superseded", "unannotated task", "submitted without a
        value"; ``{}`` when nothing was dropped); some readers add ``notes`` (a list of
        sentences the report prints, e.g. doccano's empty member files, or label sets read
        because some annotations chose no category), layout "single"
        with declared labels ``categories``. Structured attrs (``dropped``, ``notes``,
        ``categories``, ``category_names``, doccano's ``empty_label_lists``) are JSON text, which every store
        (netCDF, zarr) accepts: ``json.loads(da.attrs["dropped"])`` is the dict.

    Raises
    ------
    AnnotationFileError
        Naming row and column: a missing column, an empty file, a blank item or annotator,
        a duplicate (item, annotator) row (or (item, annotator, label) in "long"), a label
        outside the declared universe, a value other than 0/1, a CSV/TSV row with more or
        fewer fields than the header or a quoted cell never closed (naming its line), a
        JSON-lines record without the labels key others have, an id or label that is NaN,
        an infinity, a boolean, a nested list or blank; a tool's export read as ratings
        (``layout="single"``, or a config stating one choice) where an annotation holds
        several choices, naming item, annotator, the choices and the row.

    Examples
    --------
    >>> import json, os, tempfile, xr_agreement
    >>> path = os.path.join(tempfile.mkdtemp(), "votes.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("item,annotator,labels\\ns1,ann,a\\ns1,bob,a;b\\ns2,ann,\\ns2,bob,b\\n")
    >>> da = xr_agreement.read_annotations(path)
    >>> da.sel(item="s1").values
    array([[1, 0],
           [1, 1]], dtype=uint8)
    >>> xr_agreement.read_annotations(path, labels=["a", "b", "c"]).sizes["label"]
    3

    A Label Studio export (a JSON array of tasks); the skipped annotation is no decision:

    >>> tasks = [{"id": 7, "annotations": [
    ...     {"completed_by": 1, "result": [{"from_name": "topic", "to_name": "text",
    ...      "type": "choices", "value": {"choices": ["sport"]}}]},
    ...     {"completed_by": 2, "was_cancelled": True, "result": []}]}]
    >>> path = os.path.join(tempfile.mkdtemp(), "export.json")
    >>> with open(path, "w") as f:
    ...     _ = f.write(json.dumps(tasks))
    >>> da = xr_agreement.read_annotations(path, labels=["news", "sport"], layout="sets")
    >>> da.attrs["reader"], json.loads(da.attrs["dropped"])
    ('label-studio', {'cancelled': {'2': 1}})
    >>> da.sel(item=7).values
    array([[ 0.,  1.],
           [nan, nan]])

    Every annotation chose one category, and nothing says several were allowed: by default
    the same export is read as ratings, saying why:

    >>> da = xr_agreement.read_annotations(path, labels=["news", "sport"])
    >>> da.sel(item=7).values
    array(['sport', nan], dtype=object)
    >>> da.attrs["single_label"][:46]
    'every annotation selects exactly one category;'
    """
    if layout not in ("auto", "sets", "long", "single"):
        raise ValueError(f"layout must be 'auto', 'sets', 'long' or 'single', got {layout!r}")
    if tool is not None and tool not in tools.TOOLS:
        raise ValueError(f"tool must be one of {list(tools.TOOLS)}, got {tool!r}")
    tool_given = tool is not None
    if tool is None:
        tool = tools.detect_tool(path) if format is None else "table"
    if tool != "table" and layout == "long":
        raise AnnotationFileError(
            f"the file is a {tool} export, read by its own reader; layout='long' is for the "
            "generic table reader (tool='table', --from table); a tool's export is read with "
            "layout 'auto', 'sets' or 'single'", path=path)
    if tool != "table":
        return _storable(tools.read_tool(
            path, tool, labels=labels, control=control, sep=sep, item_column=item_column,
            annotator_column=annotator_column, labels_column=labels_column,
            empty_list=empty_list, item=item, annotator=annotator, label=label,
            spans_as_label_sets=spans_as_label_sets, layout=layout))
    # a file told "table" by detection may be a damaged export: the error names the file
    read_as = ("read as a table" if tool_given else "not recognised as a tool's export; "
               "name the tool (tool=, --from TOOL)")
    if control is not None:
        raise AnnotationFileError(f"control= picks a control of a tool's export; the file is "
                                  f"{read_as}", path=path)
    if empty_list is not None:
        raise AnnotationFileError(f"empty_list= is for doccano exports; the file is {read_as}",
                                  path=path)
    if spans_as_label_sets:
        raise AnnotationFileError(f"spans_as_label_sets= is for Label Studio and doccano "
                                  f"exports; the file is {read_as}", path=path)
    if tools.is_config(labels):  # its XML lines would otherwise be read as labels
        raise AnnotationFileError("a labeling config (XML) declares a Label Studio "
                                  "project's labels; this file is read as a table",
                                  path=labels)
    da = read_table_annotations(
        path, layout, format=format, labels=labels, sep=";" if sep is None else sep,
        item_column=item_column, annotator_column=annotator_column,
        labels_column=labels_column, label_column=label_column, value_column=value_column,
        rating_column=rating_column, item=item, annotator=annotator, label=label)
    if layout == "single":
        da.attrs["single_label"] = "layout='single' was given"
    return _storable(da)


def _storable(da: xr.DataArray) -> xr.DataArray:
    """``da`` with attrs that every store accepts (structured ones as JSON text); the
    declared ``categories`` always JSON, whatever their type (a tool reader's are already
    JSON text)."""
    if "categories" in da.attrs and not isinstance(da.attrs["categories"], str):
        da.attrs["categories"] = json_attr(da.attrs["categories"])
    da.attrs = storable_attrs(da.attrs)
    return da
