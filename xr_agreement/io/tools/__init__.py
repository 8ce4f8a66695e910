"""Readers of annotation-tool exports, one per tool, and the detection of the tool from a
file's content. Each reader keeps the tool's own meaning of "no decision" (NaN) and says what
it dropped in the ``dropped`` attr. A single-label export (one category per annotation: the
tool's config or export says so, or else every annotation chose exactly one) is read as
ratings (item, annotator) whose attr ``single_label`` says why; ``layout`` overrides."""

from __future__ import annotations

import os

from ..._core.attrs import json_attr
from ..files import AnnotationFileError, read_label_universe
from ._common import gc_paused
from .argilla import read_argilla
from .detect import detect_tool
from .doccano import read_doccano
from .label_studio import read_choice_styles, read_config, read_label_studio
from .mturk import read_mturk
from .prodigy import read_prodigy
from .tables import read_crowd, read_wide

READERS = {
    "label-studio": read_label_studio,
    "prodigy": read_prodigy,
    "doccano": read_doccano,
    "argilla": read_argilla,
    "mturk": read_mturk,
    "crowd": read_crowd,
    "wide": read_wide,
}

# every value of tool= (read_annotations) and --from (the command line)
TOOLS = (*READERS, "table")


def is_config(labels) -> bool:
    """Whether ``labels`` names a Label Studio labeling config (an XML file)."""
    if not isinstance(labels, (str, os.PathLike)):
        return False
    if os.fspath(labels).lower().endswith(".xml"):
        return True
    try:
        with open(labels, encoding="utf-8") as handle:
            return handle.read(200).lstrip().startswith("<")
    except (OSError, UnicodeDecodeError):
        return False


def read_tool(path, tool: str, *, labels=None, control=None, sep=None, item_column=None,
              annotator_column=None, labels_column=None, empty_list=None, item="item",
              annotator="annotator", label="label", spans_as_label_sets=False,
              layout="auto"):
    """The decisions of a tool's export, read by that tool's reader.

    :func:`xr_agreement.read_annotations` calls this once it knows the tool; the parameters
    are its own (``labels`` may be a Label Studio labeling config, XML, for "label-studio").

    Parameters
    ----------
    path : str or path-like
    tool : str
        One of ``READERS``: "label-studio", "prodigy", "doccano", "argilla", "mturk",
        "crowd", "wide".
    labels, control, sep, item_column, annotator_column, labels_column : optional
        As in :func:`xr_agreement.read_annotations`.
    empty_list, item, annotator, label : optional
        As in :func:`xr_agreement.read_annotations`.
    spans_as_label_sets : bool, default False
        As in :func:`xr_agreement.read_annotations` (Label Studio and doccano).
    layout : {"auto", "sets", "single"}
        "sets": label sets (item, annotator, label); "single": ratings (item, annotator),
        an annotation choosing several categories an error naming it; "auto": ratings when
        the export is single-label (the tool's statement, else every annotation choosing
        exactly one category), else label sets.

    Returns
    -------
    xarray.DataArray
        Float decisions (item, annotator, label), NaN where the tool says no decision, or
        ratings (item, annotator): the category chosen, NaN where no decision, with attrs
        ``single_label`` (why it was read so) and, where a universe is declared,
        ``categories`` (JSON list); attrs ``reader`` and ``dropped``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "votes.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("task,worker,label\\nt1,w1,a\\nt1,w2,b\\n")
    >>> read_tool(path, "crowd", layout="sets").sel(item="t1").values
    array([[1., 0.],
           [0., 1.]])
    >>> da = read_tool(path, "crowd")
    >>> da.sel(item="t1").values, da.attrs["single_label"][:40]
    (array(['a', 'b'], dtype=object), 'every annotation selects exactly one cat')
    """
    if tool not in READERS:
        raise ValueError(f"tool must be one of {list(TOOLS)}, got {tool!r}")
    if not os.path.exists(path):
        raise AnnotationFileError("file not found", path=path)
    if layout not in ("auto", "sets", "single"):
        raise ValueError(f"a tool's export is read with layout 'auto', 'sets' or 'single', got "
                         f"{layout!r}")
    universe, config, names, styles = None, None, None, None
    if is_config(labels):
        if tool != "label-studio":
            raise AnnotationFileError("a labeling config (XML) declares a Label Studio "
                                      f"project's labels; this file is read as {tool!r}",
                                      path=labels)
        config = read_config(labels)
        styles = read_choice_styles(labels)
    elif isinstance(labels, (str, os.PathLike)):
        universe, names = read_label_universe(labels)
    elif labels is not None:
        universe = [str(v) for v in labels]
        if len(set(universe)) != len(universe):
            raise ValueError("the declared label universe has duplicates")
    keywords = {"universe": universe, "item": item, "annotator": annotator, "label": label,
                "layout": layout}
    if tool == "label-studio":
        keywords.update(config=config, control=control, choice_styles=styles)
    elif tool in ("argilla", "mturk"):
        keywords["control"] = control
    elif control is not None:
        raise ValueError(f"control= picks a Label Studio control, an Argilla question or an "
                         f"MTurk crowd element; the {tool!r} reader has none")
    if tool in ("doccano", "crowd"):
        keywords["sep"] = sep
    if tool in ("label-studio", "doccano"):
        keywords["spans_as_label_sets"] = spans_as_label_sets
    elif spans_as_label_sets:
        raise ValueError(f"spans_as_label_sets= reads the spans of a Label Studio or doccano "
                         f"export as label sets; the {tool!r} reader reads no spans")
    if tool == "doccano":
        keywords["empty_list"] = empty_list
    elif empty_list is not None:
        raise ValueError(f"empty_list= says what a doccano export's empty label list means; "
                         f"the {tool!r} reader has none")
    if tool in ("crowd", "wide"):
        keywords.update(item_column=item_column, annotator_column=annotator_column)
        if tool == "crowd":
            keywords["labels_column"] = labels_column
    with gc_paused():  # a reader keeps every record it parsed: see _common.gc_paused
        da = READERS[tool](path, **keywords)
    if names is not None and label in da.dims:
        da = da.assign_coords(label_name=(label, [n or v for n, v in zip(
            names, universe)]))
    elif names is not None:  # ratings: each declared category's name, in their order
        da.attrs["category_names"] = json_attr([n or v for n, v in zip(names, universe)])
    return da


__all__ = ["READERS", "TOOLS", "detect_tool", "read_tool"]
