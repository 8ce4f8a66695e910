"""Figures of agreement results (matplotlib, an optional dependency imported on first use).

Each function takes the Dataset of :func:`xr_agreement.mla` (or a :class:`Report`), draws on
``ax`` when given, and otherwise returns a new :class:`matplotlib.figure.Figure` made without
pyplot (so nothing is left open in scripts and servers; save with ``fig.savefig``, display in
Jupyter by leaving it as the cell's value).

Labels never selected (prevalence 0) are left out by default: their coefficient is undefined
under F and trivially 1 under AC1 and PB, which says nothing about annotators.
"""

from __future__ import annotations

import base64
import io

import numpy as np
import xarray as xr

from ._core.safe_text import visible

PALETTE = {"F": "#0969da", "AC1": "#cf222e", "PB": "#1a7f37"}
MARKERS = {"F": "o", "AC1": "s", "PB": "D"}


def _matplotlib():
    try:
        from matplotlib.figure import Figure
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("figures need matplotlib: pip install 'xr-agreement[plot]'") from error
    return Figure


def _dataset(result):
    """(Dataset, label names dict or None, label dim, item dim) from a Dataset or Report."""
    if isinstance(result, xr.Dataset):
        names = None
        if "label_name" in result.coords:
            names = {str(k): str(v) for k, v in zip(result.label.values,
                                                    result.label_name.values)}
        return result, names, "label", "item"
    dims = result.settings["dims"]
    return result.result, result.design.get("label_names"), dims["label"], dims["item"]


def _baseline(ds, baseline):
    if "baseline" not in ds.dims:
        # one baseline selected from several (mla(..., "all").sel(baseline="AC1")): the
        # scalar coordinate names it; attrs["baseline"] is still the JSON list of all
        if "baseline" in ds.coords:
            return ds, str(ds.baseline.item())
        return ds, ds.attrs.get("baseline", "")
    baseline = baseline or str(ds.baseline.values[0])
    return ds.sel(baseline=baseline), baseline


def _new_axes(ax, figsize):
    if ax is not None:
        return ax.figure, ax
    figure = _matplotlib()(figsize=figsize, layout="constrained")
    return figure, figure.add_subplot()


def _label_axis_height(count: int) -> float:
    return min(0.3 * count + 1.6, 24.0)


def _tick_size(count: int) -> float:
    return 8 if count <= 60 else max(3, 480 / count)


def _name(value, names):
    """A label or id as drawn: control characters shown as escapes, as in the text report
    (drawn raw, matplotlib warned "Glyph 27 (ESC) missing", the ESC reaching the terminal)."""
    name = (names or {}).get(str(value))
    return visible(f"{value} {name}" if name and name != str(value) else str(value))


def _used(ds, label, drop_unused):
    if not drop_unused:
        return ds, 0
    keep = ds.label_prevalence > 0
    return ds.sel({label: keep}), int((~keep).sum())


def plot_labels(result, baseline: str | None = None, *, ax=None, drop_unused: bool = True):
    """Label-wise coefficients sorted by value, sized by weight, with interval bars.

    Parameters
    ----------
    result : xarray.Dataset or Report
        From :func:`xr_agreement.mla` (``label_agreement``, ``label_weight``, optional
        ``label_agreement_lower`` / ``_upper``) or :func:`xr_agreement.report`.
    baseline : str, optional
        Which baseline when the result has a ``baseline`` dim (default: the first).
    ax : matplotlib.axes.Axes, optional
    drop_unused : bool, default True
        Leave out labels nobody selected.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import xr_agreement
    >>> from xr_agreement.plot import plot_labels
    >>> fig = plot_labels(xr_agreement.datasets.bias_example().agreement.mla())
    >>> len(fig.axes[0].get_yticklabels())
    11
    """
    ds, names, label, _ = _dataset(result)
    ds, baseline = _baseline(ds, baseline)
    ds, n_dropped = _used(ds, label, drop_unused)
    values = ds.label_agreement
    defined = values.notnull()
    ds, values = ds.sel({label: defined}), values.sel({label: defined})
    order = np.argsort(values.values, kind="stable")
    ds = ds.isel({label: order})
    figure, ax = _new_axes(ax, (6.4, _label_axis_height(ds.sizes[label])))
    y = np.arange(ds.sizes[label])
    weight = ds.label_weight.values
    sizes = 20 + 280 * weight / weight.max() if weight.size and weight.max() > 0 else 40
    colour = PALETTE.get(baseline, "#0969da")
    if "label_agreement_lower" in ds:
        lower, upper = ds.label_agreement_lower.values, ds.label_agreement_upper.values
        value = ds.label_agreement.values
        ax.errorbar(value, y, xerr=[value - lower, upper - value], fmt="none",
                    ecolor="#8c959f", elinewidth=1.2, capsize=2, zorder=1)
    ax.scatter(ds.label_agreement.values, y, s=sizes, color=colour, alpha=0.8, zorder=2,
               label="A_j (size = weight w_j)")
    if "agreement" in ds:
        ax.axvline(float(ds.agreement), color=colour, linestyle="--", linewidth=1,
                   label=f"corpus A_ml = {float(ds.agreement):.3f}")
    ax.axvline(0, color="#57606a", linewidth=0.6)
    ax.set_yticks(y, [_name(v, names) for v in ds[label].values],
                  fontsize=_tick_size(ds.sizes[label]))
    ax.set_xlabel(f"label agreement A_j ({baseline})")
    title = f"Label-wise agreement ({baseline})"
    hidden = n_dropped + int((~defined).sum())
    if hidden:
        title += f",\n{hidden} labels not shown (never selected or undefined)"
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    return figure


def plot_items(result, baseline: str | None = None, *, ax=None, n_named: int = 3,
               named=None):
    """Distribution of item-level agreement with the hardest items named.

    Up to 50 items are drawn as a sorted dot plot (one dot per item); more as a histogram
    with a rug. The hardest items are named in red.

    Parameters
    ----------
    result : xarray.Dataset or Report
    baseline : str, optional
        Baseline of ``item_agreement`` (default: the first).
    ax : matplotlib.axes.Axes, optional
    n_named : int, default 3
        How many of the lowest items to name.
    named : sequence, optional
        Item ids to name instead (a Report passes its hardest items).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import xr_agreement
    >>> from xr_agreement.plot import plot_items
    >>> fig = plot_items(xr_agreement.datasets.bias_example().agreement.mla(), n_named=2)
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['4', '2']
    """
    ds, _, _, item = _dataset(result)
    ds, baseline = _baseline(ds, baseline)
    values = ds.item_agreement.dropna(item)
    data = values.values
    order = np.argsort(data, kind="stable")
    ids = values[item].values
    if named is None:
        named_positions = order[:n_named]
    else:
        wanted = {str(v) for v in named}
        named_positions = [p for p in order if str(ids[p]) in wanted]
    figure, ax = _new_axes(ax, (6.4, 3.4))
    red = {"color": "#cf222e", "fontsize": 8}
    if data.size <= 50:
        rank = np.empty(data.size)
        rank[order] = np.arange(data.size)
        ax.scatter(data, rank, s=22, color="#57606a", zorder=2)
        for position in named_positions:
            ax.scatter(data[position], rank[position], s=30, color="#cf222e", zorder=3)
            ax.annotate(_name(ids[position], None), (data[position], rank[position]),
                        xytext=(6, -3), textcoords="offset points", **red)
        ax.set_ylabel("items, sorted")
        ax.set_yticks([])
    else:
        bins = min(40, int(np.sqrt(data.size)) + 1)
        ax.hist(data, bins=bins, color="#d0d7de", edgecolor="#8c959f")
        ax.plot(data, np.zeros_like(data), "|", color="#1f2328", markersize=10)
        top = ax.get_ylim()[1]
        for step, position in enumerate(named_positions):
            ax.annotate(_name(ids[position], None), (data[position], 0),
                        xytext=(data[position], top * (0.9 - 0.08 * (step % 10))),
                        arrowprops={"arrowstyle": "-", "color": "#cf222e", "linewidth": 0.8},
                        ha="center", **red)
        ax.set_ylabel("items")
    if "agreement" in ds:
        ax.axvline(float(ds.agreement), color=PALETTE.get(baseline, "#0969da"),
                   linestyle="--", linewidth=1, label=f"corpus A_ml = {float(ds.agreement):.3f}")
        ax.legend(fontsize=7, loc="lower right")
    ax.set_xlabel(f"item agreement A_ml,i ({baseline})")
    ax.set_title(f"Item-level agreement (N = {data.size}),\nhardest items named", fontsize=9)
    return figure


def plot_baselines(result, *, ax=None, drop_unused: bool = True):
    """Label-wise coefficients under each baseline (F vs AC1 vs PB), labels sorted by the
    first baseline.

    Parameters
    ----------
    result : xarray.Dataset or Report
        With a ``baseline`` dim (``mla(..., baseline="all")``).
    ax : matplotlib.axes.Axes, optional
    drop_unused : bool, default True

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import xr_agreement
    >>> from xr_agreement.plot import plot_baselines
    >>> fig = plot_baselines(xr_agreement.datasets.bias_example().agreement.mla("all"))
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['F', 'AC1', 'PB']
    """
    ds, names, label, _ = _dataset(result)
    if "baseline" not in ds.dims:
        raise ValueError("plot_baselines needs several baselines: mla(..., baseline='all')")
    ds, _ = _used(ds, label, drop_unused)
    values = ds.label_agreement.transpose("baseline", label)
    first = values.isel(baseline=0).values
    order = np.argsort(np.where(np.isnan(first), np.inf, first), kind="stable")
    values = values.isel({label: order})
    figure, ax = _new_axes(ax, (6.4, _label_axis_height(values.sizes[label])))
    y = np.arange(values.sizes[label])
    count = values.sizes["baseline"]
    for offset, name in enumerate(values.baseline.values):
        name = str(name)
        ax.scatter(values.sel(baseline=name).values, y + (offset - (count - 1) / 2) * 0.22,
                   marker=MARKERS.get(name, "o"), color=PALETTE.get(name), s=28, label=name)
    ax.axvline(0, color="#57606a", linewidth=0.6)
    ax.set_yticks(y, [_name(v, names) for v in values[label].values],
                  fontsize=_tick_size(values.sizes[label]))
    ax.set_xlabel("label agreement A_j")
    ax.set_title("Baseline sensitivity per label,\nlabels sorted by the first baseline",
                 fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    return figure


def plot_report(report, kind: str = "all", **kwargs):
    """The figures of a :class:`xr_agreement.report.Report` (``report.plot()``)."""
    primary = report.baselines[0]
    if kind == "labels":
        return plot_labels(report, primary, **kwargs)
    hardest = [entry["item"] for entry in report.design["hardest_items"]]
    if kind == "items":
        return plot_items(report, primary, named=hardest, **kwargs)
    if kind == "baselines":
        return plot_baselines(report, **kwargs)
    if kind != "all":
        raise ValueError(f"kind must be 'all', 'labels', 'items' or 'baselines', got {kind!r}")
    figure = _matplotlib()(figsize=(15, _label_axis_height(report.design["n_labels_used"]) + 0.6),
                           layout="constrained")
    axes = figure.subplots(1, 3)
    plot_labels(report, primary, ax=axes[0])
    plot_items(report, primary, ax=axes[1], named=hardest)
    if len(report.baselines) > 1:
        plot_baselines(report, ax=axes[2])
    else:
        axes[2].set_axis_off()
    return figure


def figure_png(figure, dpi: int = 90) -> str:
    """A figure as base64-encoded PNG, for self-contained HTML."""
    # labels and ids come from the input: "$...$" in one is text, not mathtext to parse
    # (a "$\\frac$" label made the whole HTML report fail)
    for text in figure.findobj(lambda artist: hasattr(artist, "set_parse_math")):
        text.set_parse_math(False)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
