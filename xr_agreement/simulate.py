"""Controlled data generators, analytic expectations and the simulation grid of the MLA
paper (Menzner & Leidner, section 4, Table 4 and Figure 1).

Four generators draw binary multi-label decisions with known structure:

``"perfect"``
    a latent label vector per item (each label set with probability ``prevalence``) that
    every annotator copies, so observed agreement is exactly 1;
``"flip"``
    the latent vector copied with each decision flipped independently with probability
    ``error`` (the paper's "high agreement" condition, eps = 0.1);
``"independent"``
    every decision an independent Bernoulli(``prevalence``) draw: agreement is only what the
    marginals imply;
``"minimum"``
    per item and label exactly ``a = max(1, min(n - 1, floor(p n + 0.5)))`` randomly chosen
    annotators say 1, which makes pairs disagree as much as the prevalence allows.

Everything is vectorized: ``n_replicates=R`` adds a ``replicate`` dim, so one call yields R
corpora that one :func:`xr_agreement.mla` call reduces at once.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import xarray as xr

from . import compare
from .mla import mla

GENERATORS = {
    "perfect": "every annotator copies a latent label vector drawn with the given prevalence",
    "flip": "annotators copy the latent vector and flip each decision with probability error",
    "independent": "every decision is an independent Bernoulli(prevalence) draw",
    "minimum": "a = max(1, min(n - 1, floor(p n + 0.5))) random annotators say 1 per item "
    "and label (minimum feasible agreement)",
}

BASELINE_NAMES = ["F", "AC1", "PB"]

PAPER = "Menzner & Leidner (2026), Multi-Label Agreement"

# The paper's Table 4 design (section 4).
TABLE4_PREVALENCE = {"high": 0.8, "moderate": 0.5, "low": 0.2}
TABLE4_ANNOTATORS = (3, 5, 10)
TABLE4_ITEMS = (20, 50, 100)
TABLE4_LABELS = (5, 10, 25)

# Table 4 of the paper (seed 001): the rows it prints, columns F, AC1, PB, MASI,
# augmented kappa, boot-F1, A_m.
TABLE4_MEASURES = ["F", "AC1", "PB", "MASI", "augmented_kappa", "boot_f1", "A_m"]
PAPER_TABLE4 = {
    ("perfect", "high"): (1.000, 1.000, 1.000, 1.000, 0.042, 1.000, 1.000),
    ("perfect", "moderate"): (1.000, 1.000, 1.000, 1.000, 0.171, 1.000, 1.000),
    ("perfect", "low"): (1.000, 1.000, 1.000, 1.000, 0.381, 1.000, 1.000),
    ("flip", "high"): (0.524, 0.711, 0.641, 0.870, 0.030, 0.523, 0.426),
    ("flip", "moderate"): (0.634, 0.647, 0.641, 0.817, 0.101, 0.619, 0.495),
    ("flip", "low"): (0.523, 0.710, 0.640, 0.693, 0.164, 0.487, 0.424),
}


def _check_positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _prevalence_per_label(prevalence, n_labels: int) -> np.ndarray:
    values = np.asarray(prevalence, dtype=float)
    if values.ndim == 0:
        values = np.full(n_labels, float(values))
    elif values.shape != (n_labels,):
        raise ValueError(
            f"prevalence must be a scalar or have one value per label (n_labels={n_labels}), "
            f"got shape {values.shape}"
        )
    bad = ~((values >= 0) & (values <= 1))
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"prevalence must lie in [0, 1]; got {float(values[j])!r} for label={j}")
    return values


def simulate(
    generator: str,
    n_items: int,
    n_annotators: int,
    n_labels: int,
    prevalence,
    *,
    error: float = 0.1,
    seed=None,
    n_replicates: int | None = None,
) -> xr.DataArray:
    """Draw binary multi-label decisions from one of the paper's controlled generators.

    Parameters
    ----------
    generator : {"perfect", "flip", "independent", "minimum"}
        The data-generating process (MLA paper, section 4; see the module docstring).
    n_items, n_annotators, n_labels : int
        Corpus size N, number of annotators n (at least 2), number of labels k.
    prevalence : float or array of shape (n_labels,)
        Probability that a label is set in the latent vector ("perfect", "flip"), in each
        decision ("independent"), or the target share of positive decisions ("minimum").
    error : float, default 0.1
        Flip probability eps of the "flip" generator; ignored by the others.
    seed : int, numpy.random.Generator or None
        Seed for :func:`numpy.random.default_rng`.
    n_replicates : int, optional
        If given, draw that many independent corpora along a leading ``replicate`` dim.

    Returns
    -------
    xarray.DataArray
        uint8 decisions with dims (``replicate``,) ``item``, ``annotator``, ``label`` and
        integer coordinates from 0; attrs record the generator and its parameters.

    Raises
    ------
    ValueError
        Unknown generator, fewer than 2 annotators, a size that is not a positive integer, a
        prevalence or error outside [0, 1].

    Examples
    --------
    >>> from xr_agreement.simulate import simulate
    >>> da = simulate("perfect", 50, 3, 5, 0.5, seed=0)
    >>> da.sizes
    Frozen({'item': 50, 'annotator': 3, 'label': 5})
    >>> float(da.agreement.mla().observed)
    1.0
    >>> simulate("minimum", 4, 3, 2, 0.8, seed=1).sum("annotator").values.tolist()
    [[2, 2], [2, 2], [2, 2], [2, 2]]
    >>> simulate("flip", 20, 5, 10, 0.2, n_replicates=4, seed=2).dims
    ('replicate', 'item', 'annotator', 'label')
    """
    if generator not in GENERATORS:
        raise ValueError(f"unknown generator {generator!r}; use one of {list(GENERATORS)}")
    n_items = _check_positive_int("n_items", n_items)
    n_annotators = _check_positive_int("n_annotators", n_annotators)
    n_labels = _check_positive_int("n_labels", n_labels)
    if n_annotators < 2:
        raise ValueError(f"n_annotators must be at least 2, got {n_annotators}")
    if n_replicates is not None:
        n_replicates = _check_positive_int("n_replicates", n_replicates)
    if not 0 <= error <= 1:
        raise ValueError(f"error must lie in [0, 1], got {error!r}")
    p = _prevalence_per_label(prevalence, n_labels)
    rng = np.random.default_rng(seed)
    R = 1 if n_replicates is None else n_replicates
    shape = (R, n_items, n_annotators, n_labels)

    if generator == "perfect":
        latent = rng.random((R, n_items, 1, n_labels)) < p
        values = np.broadcast_to(latent, shape)
    elif generator == "flip":
        latent = rng.random((R, n_items, 1, n_labels)) < p
        values = latent ^ (rng.random(shape) < error)
    elif generator == "independent":
        values = rng.random(shape) < p
    else:
        positives = np.clip(np.floor(p * n_annotators + 0.5), 1, n_annotators - 1)
        # rank of a uniform key among the annotators = a uniformly random permutation, so
        # "rank < a" picks a random annotators per item and label
        ranks = rng.random(shape).argsort(axis=2).argsort(axis=2)
        values = ranks < positives
    values = np.ascontiguousarray(values, dtype=np.uint8)

    dims = ("replicate", "item", "annotator", "label")
    coords = {
        "replicate": np.arange(R),
        "item": np.arange(n_items),
        "annotator": np.arange(n_annotators),
        "label": np.arange(n_labels),
    }
    if n_replicates is None:
        values, dims = values[0], dims[1:]
        del coords["replicate"]
    attrs = {
        "long_name": "simulated decision",
        "description": f"{generator} generator: {GENERATORS[generator]} (MLA paper, section 4)",
        "generator": generator,
        "prevalence": p.tolist() if np.ndim(prevalence) else float(prevalence),
        "reference": f"{PAPER}, section 4",
    }
    if generator == "flip":
        attrs["error"] = float(error)
    return xr.DataArray(values, dims=dims, coords=coords, name="decision", attrs=attrs)


# --- analytic expectations ------------------------------------------------------------

ANALYTIC_VARIABLES = {
    "observed": (
        "expected observed agreement",
        "A_o",
        (
            "probability that two annotators agree on a label decision: (1 - eps)^2 + eps^2 "
            "under flip, p^2 + (1 - p)^2 under independent draws"
        ),
    ),
    "positive_rate": (
        "marginal positive rate",
        "q",
        (
            "probability that an annotator says 1: eps + p (1 - 2 eps) under flip, p under "
            "independent draws"
        ),
    ),
    "expected": (
        "baseline agreement",
        "A_e",
        "the baseline evaluated at q: q^2 + (1 - q)^2 (F), 2 q (1 - q) (AC1), 0.5 (PB)",
    ),
    "agreement": (
        "analytic coefficient",
        "A_ml",
        ("(A_o - A_e) / (1 - A_e) in the limit of many items (plug-in q); NaN where 1 - A_e = 0"),
    ),
}


def _analytic(observed, positive_rate) -> xr.Dataset:
    """Coefficients of eq. 5 from per-label A_o and q, averaged over ``label`` if present."""
    baseline = xr.DataArray(BASELINE_NAMES, dims="baseline", name="baseline")
    q = positive_rate
    expected = xr.concat([q**2 + (1 - q) ** 2, 2 * q * (1 - q), xr.full_like(q, 0.5)], dim=baseline)
    gap = xr.concat([2 * q * (1 - q), q**2 + (1 - q) ** 2, xr.full_like(q, 0.5)], dim=baseline)
    observed_mean, expected_mean, gap_mean = observed, expected, gap
    if "label" in q.dims:
        # eq. 5 averages A_o and A_e over labels before normalizing
        observed_mean = observed.mean("label")
        expected_mean = expected.mean("label")
        gap_mean = gap.mean("label")
    agreement = (observed_mean - expected_mean) / gap_mean.where(gap_mean != 0)
    expected_mean = expected_mean.transpose(..., "baseline")
    agreement = agreement.transpose(..., "baseline")
    result = xr.Dataset(
        {
            "observed": observed_mean,
            "positive_rate": q,
            "expected": expected_mean,
            "agreement": agreement,
        }
    )
    for name, (long_name, symbol, description) in ANALYTIC_VARIABLES.items():
        result[name].attrs = {"long_name": long_name, "symbol": symbol, "description": description}
    return result


def _as_prevalence(prevalence) -> xr.DataArray:
    if isinstance(prevalence, xr.DataArray):
        p = prevalence.astype(float)
    else:
        values = np.asarray(prevalence, dtype=float)
        if values.ndim > 1:
            raise ValueError(
                "prevalence must be a scalar, a 1-D array or a DataArray (use a DataArray "
                f"with a 'label' dim for per-label prevalences); got shape {values.shape}"
            )
        p = xr.DataArray(values, dims=("prevalence",) if values.ndim else (), name="prevalence")
        if values.ndim:
            p = p.assign_coords(prevalence=values)
    bad = ~((p >= 0) & (p <= 1))
    if bool(bad.any()):
        raise ValueError(
            f"prevalence must lie in [0, 1]; got {float(p.where(bad).max())!r} (or NaN)"
        )
    return p


def analytic_flip(prevalence, error: float = 0.1) -> xr.Dataset:
    """Analytic agreement under the "flip" generator (MLA paper, section 4).

    Two annotators copying a latent label set with probability p and flipping each
    decision with probability eps agree with probability (1 - eps)^2 + eps^2 and say 1
    with probability q = eps + p (1 - 2 eps). The coefficients follow from eq. 5 with the
    baselines evaluated at q: the values simulated means converge to as the number of
    items grows.

    Parameters
    ----------
    prevalence : float, 1-D array or xarray.DataArray
        Latent prevalence p. A 1-D array becomes a ``prevalence`` dim; a DataArray keeps its
        dims, and a ``label`` dim among them is averaged over as in eq. 5 (A_o and A_e are
        label means before normalizing).
    error : float, default 0.1
        Flip probability eps.

    Returns
    -------
    xarray.Dataset
        ``observed`` (A_o), ``positive_rate`` (q), ``expected`` (A_e) and ``agreement``
        (A_ml) with a ``baseline`` dim (F, AC1, PB).

    Examples
    --------
    >>> from xr_agreement.simulate import analytic_flip
    >>> res = analytic_flip(0.5, error=0.1)
    >>> float(res.observed), float(res.positive_rate)
    (0.82, 0.5)
    >>> res.agreement.round(4).values.tolist()
    [0.64, 0.64, 0.64]
    >>> analytic_flip([0.2, 0.8]).agreement.sel(baseline="F").round(4).values.tolist()
    [0.532, 0.532]
    """
    if not 0 <= error <= 1:
        raise ValueError(f"error must lie in [0, 1], got {error!r}")
    p = _as_prevalence(prevalence)
    q = error + p * (1 - 2 * error)
    observed = xr.full_like(q, (1 - error) ** 2 + error**2)
    result = _analytic(observed, q)
    result.attrs = {
        "generator": "flip",
        "error": float(error),
        "reference": f"{PAPER}, section 4 and Figure 1",
    }
    return result


def analytic_independent(prevalence) -> xr.Dataset:
    """Analytic agreement when every decision is an independent Bernoulli(p) draw.

    A_o = p^2 + (1 - p)^2 equals the F baseline, so F is 0 wherever defined, while AC1 and
    PB are positive at extreme prevalence (MLA paper, Figure 1 left).

    Examples
    --------
    >>> from xr_agreement.simulate import analytic_independent
    >>> analytic_independent(0.9).agreement.round(4).values.tolist()
    [0.0, 0.7805, 0.64]
    """
    p = _as_prevalence(prevalence)
    observed = p**2 + (1 - p) ** 2
    result = _analytic(observed, p)
    result.attrs = {
        "generator": "independent",
        "reference": f"{PAPER}, section 4 and Figure 1",
    }
    return result


def prevalence_sensitivity(prevalence=None, *, error: float = 0.1) -> xr.Dataset:
    """The analytic curves of the paper's Figure 1 for F, AC1 and PB over p in (0, 1).

    Parameters
    ----------
    prevalence : 1-D array, optional
        Prevalence grid; default 199 points from 0.005 to 0.995.
    error : float, default 0.1
        Flip probability of the right panel.

    Returns
    -------
    xarray.Dataset
        The variables of :func:`analytic_flip` with dims ``generator`` ("independent",
        "flip"), ``prevalence`` and (for baseline-dependent ones) ``baseline``.

    Examples
    --------
    >>> from xr_agreement.simulate import prevalence_sensitivity
    >>> curves = prevalence_sensitivity([0.1, 0.5])
    >>> curves.agreement.sel(baseline="F").round(3).values.tolist()
    [[0.0, 0.0], [0.39, 0.64]]
    """
    if prevalence is None:
        prevalence = np.linspace(0.005, 0.995, 199)
    grid = np.atleast_1d(np.asarray(prevalence, dtype=float))
    if grid.ndim != 1:
        raise ValueError(f"prevalence must be 1-D, got shape {grid.shape}")
    panels = [analytic_independent(grid), analytic_flip(grid, error=error)]
    result = xr.concat(panels, dim="generator", coords="minimal", compat="override")
    result = result.assign_coords(generator=["independent", "flip"])
    for name in result.data_vars:
        result[name].attrs = panels[1][name].attrs
    result.attrs = {
        "error": float(error),
        "description": "analytic prevalence sensitivity (MLA paper, Figure 1): left "
        "panel independent Bernoulli(p) draws, right panel flip with probability error",
        "reference": f"{PAPER}, section 4 and Figure 1",
    }
    return result


# --- Table 4 --------------------------------------------------------------------------


def _corpus_measures(decisions: xr.DataArray, measures, n_chance_runs, rng) -> dict:
    """Each requested measure of every corpus along ``replicate`` (an array per name)."""
    out = {}
    if {"F", "AC1", "PB"} & set(measures):
        agreement = mla(decisions, baseline="all").agreement
        for name in ("F", "AC1", "PB"):
            out[name] = agreement.sel(baseline=name).values
    if "MASI" in measures:
        out["MASI"] = compare.masi(decisions).coefficient.values
    if "augmented_kappa" in measures:
        out["augmented_kappa"] = compare.augmented_kappa(decisions).coefficient.values
    if "boot_f1" in measures:
        out["boot_f1"] = compare.boot_f1(
            decisions, n_chance_runs=n_chance_runs, seed=rng
        ).coefficient.values
    if "A_m" in measures:
        out["A_m"] = compare.am(decisions).coefficient.values
    return {name: out[name] for name in measures}


TABLE4_VARIABLES = {
    "mean": (
        "mean coefficient",
        "mean",
        "average over designs and replicates (the paper's Table 4 entry)",
    ),
    "mean_se": (
        "Monte Carlo standard error",
        "SE",
        "standard error of the mean from the spread of the replicates within each design cell "
        "(sqrt(sum_d n_d var_d) / n); a rerun of the grid differs from this table by about "
        "sqrt(2) SE; NaN with fewer than 2 replicates",
    ),
    "n_values": (
        "number of defined values",
        "n",
        "values pooled per entry (NaN results, e.g. F on a corpus where every label is "
        "constant, are left out)",
    ),
    "by_design": (
        "mean per design cell",
        "mean_nNk",
        "average over the replicates of one (n, N, k) cell",
    ),
}


def _table4_dataset(values, generators, prevalences, measures, n_annotators, n_items,
                    n_labels) -> xr.Dataset:
    """The Table 4 Dataset from the values (generator, prevalence, design, measure,
    replicate) of one run."""
    n_replicates = values.shape[-1]
    per_design_count = np.isfinite(values).sum(-1)
    count = per_design_count.sum(2)
    with np.errstate(invalid="ignore", divide="ignore"):
        # the paper's entry: the mean of all pooled values
        mean = np.nansum(values, axis=(2, 4)) / count
        # Monte Carlo error of that mean, stratified by design cell (the designs are fixed,
        # only the replicates are random): sqrt(sum_d n_d var_d) / n
        within = (
            np.nanvar(values, axis=-1, ddof=1)
            if n_replicates > 1
            else np.full(per_design_count.shape, np.nan)
        )
        mean_se = np.sqrt(np.nansum(per_design_count * within, axis=2)) / count
        if n_replicates < 2:
            mean_se[...] = np.nan
    by_design = np.nanmean(values, axis=-1).reshape(
        len(generators),
        len(prevalences),
        len(n_annotators),
        len(n_items),
        len(n_labels),
        len(measures),
    )
    coords = {
        "generator": list(generators),
        "prevalence": list(prevalences),
        "prevalence_value": ("prevalence", [float(v) for v in prevalences.values()], {
            "long_name": "label prevalence",
            "description": "the prevalence p that the design's labels are drawn with",
        }),
        "measure": measures,
        "n_annotators": list(n_annotators),
        "n_items": list(n_items),
        "n_labels": list(n_labels),
    }
    table_dims = ("generator", "prevalence", "measure")
    result = xr.Dataset(
        {
            "mean": (table_dims, mean),
            "mean_se": (table_dims, mean_se),
            "n_values": (table_dims, count),
            "by_design": (
                ("generator", "prevalence", "n_annotators", "n_items", "n_labels", "measure"),
                by_design,
            ),
        },
        coords=coords,
    )
    for name, (long_name, symbol, description) in TABLE4_VARIABLES.items():
        result[name].attrs = {"long_name": long_name, "symbol": symbol, "description": description}
    return result


def table4(
    generators=("perfect", "flip", "independent", "minimum"),
    prevalences=None,
    *,
    n_annotators=TABLE4_ANNOTATORS,
    n_items=TABLE4_ITEMS,
    n_labels=TABLE4_LABELS,
    n_replicates: int = 20,
    error: float = 0.1,
    measures=tuple(TABLE4_MEASURES),
    n_chance_runs: int | None = None,
    seed=None,
) -> xr.Dataset:
    """Run the simulation grid of the paper's Table 4.

    For every generator, prevalence level and design (n annotators, N items, k labels),
    ``n_replicates`` corpora are drawn and each measure computed; the table averages over
    the designs and replicates (540 values per cell with the paper's defaults).

    Parameters
    ----------
    generators : sequence of str
        Generators to run (see :func:`simulate`).
    prevalences : dict, optional
        Level name -> prevalence; default the paper's high 0.8, moderate 0.5, low 0.2.
    n_annotators, n_items, n_labels : sequences of int
        The design grid; default the paper's {3, 5, 10} x {20, 50, 100} x {5, 10, 25}.
    n_replicates : int, default 20
        Corpora per design cell.
    error : float, default 0.1
        Flip probability of the "flip" generator.
    measures : sequence of str
        Any of "F", "AC1", "PB", "MASI", "augmented_kappa", "boot_f1", "A_m".
    n_chance_runs : int or None, default None
        Random chance runs of boot-F1. The paper used 100; ``None`` uses the exact
        expectation of the chance term instead, which removes the bootstrap noise and keeps
        the whole grid within seconds (see :func:`xr_agreement.boot_f1`).
    seed : int or None
        Seed of the whole run.

    Returns
    -------
    xarray.Dataset
        ``mean`` and ``mean_se`` (the Monte Carlo error of each entry, from the
        spread of the replicates within each design cell) with
        dims ``generator``, ``prevalence``, ``measure``; ``by_design`` (means per design
        cell) adds ``n_annotators``, ``n_items`` and ``n_labels``; ``n_values`` counts the
        defined values pooled per entry. Attrs record the run time in seconds.

    Examples
    --------
    >>> from xr_agreement.simulate import table4
    >>> small = table4(["perfect"], {"high": 0.8}, n_annotators=[3], n_items=[20],
    ...                n_labels=[5], n_replicates=2, measures=["F", "PB"], seed=0)
    >>> small["mean"].sel(generator="perfect", prevalence="high").values.tolist()
    [1.0, 1.0]
    """
    if prevalences is None:
        prevalences = TABLE4_PREVALENCE
    measures = list(measures)
    unknown = [m for m in measures if m not in TABLE4_MEASURES]
    if unknown:
        raise ValueError(f"unknown measure(s) {unknown}; use any of {TABLE4_MEASURES}")
    for g in generators:
        if g not in GENERATORS:
            raise ValueError(f"unknown generator {g!r}; use one of {list(GENERATORS)}")
    n_replicates = _check_positive_int("n_replicates", n_replicates)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    designs = list(itertools.product(n_annotators, n_items, n_labels))
    cells = list(itertools.product(generators, prevalences.values()))
    shape = (len(generators), len(prevalences), len(designs), len(measures), n_replicates)
    values = np.full(shape, np.nan)
    for di, (n, N, k) in enumerate(designs):
        # every generator and prevalence of one design in one array along ``replicate``,
        # so each measure runs once per design
        corpora = xr.concat(
            [simulate(g, N, n, k, p, error=error, seed=rng, n_replicates=n_replicates)
             for g, p in cells],
            dim="replicate",
        )
        corpora["replicate"] = np.arange(corpora.sizes["replicate"])
        per_measure = _corpus_measures(corpora, measures, n_chance_runs, rng)
        for mi, name in enumerate(measures):
            values[:, :, di, mi] = per_measure[name].reshape(
                len(generators), len(prevalences), n_replicates
            )
    elapsed = time.perf_counter() - start

    result = _table4_dataset(values, generators, prevalences, measures, n_annotators, n_items,
                             n_labels)
    result.attrs = {
        "n_replicates": int(n_replicates),
        "error": float(error),
        "n_chance_runs": "exact" if n_chance_runs is None else int(n_chance_runs),
        "seconds": round(elapsed, 3),
        "reference": f"{PAPER}, section 4, Table 4",
    }
    return result


def paper_table4() -> xr.Dataset:
    """The values printed in the paper's Table 4 (perfect and high-agreement rows).

    Examples
    --------
    >>> from xr_agreement.simulate import paper_table4
    >>> float(paper_table4()["mean"].sel(generator="flip", prevalence="high", measure="F"))
    0.524
    """
    generators = ["perfect", "flip"]
    levels = list(TABLE4_PREVALENCE)
    values = np.array([[PAPER_TABLE4[(g, lvl)] for lvl in levels] for g in generators])
    result = xr.Dataset(
        {"mean": (("generator", "prevalence", "measure"), values)},
        coords={"generator": generators, "prevalence": levels, "measure": TABLE4_MEASURES},
    )
    result["mean"].attrs = {
        "long_name": "published mean coefficient",
        "symbol": "mean",
        "description": "Table 4 of the MLA paper, three decimals (flip = 'High Agr.')",
    }
    result.attrs = {"reference": f"{PAPER}, section 4, Table 4"}
    return result


def plot_prevalence_sensitivity(curves: xr.Dataset | None = None, *, error: float = 0.1, axes=None):
    """Plot the paper's Figure 1: F, AC1 and PB against prevalence for independent draws
    (left) and the flip generator (right).

    Parameters
    ----------
    curves : xarray.Dataset, optional
        Output of :func:`prevalence_sensitivity`; computed with ``error`` if not given.
    error : float, default 0.1
        Flip probability, used only when ``curves`` is not given.
    axes : sequence of two matplotlib Axes, optional
        Where to draw; a new figure with two panels otherwise.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from xr_agreement.simulate import plot_prevalence_sensitivity
    >>> fig = plot_prevalence_sensitivity()
    >>> [ax.get_title() for ax in fig.axes]
    ['independent Bernoulli(p) draws', 'flip with eps = 0.1']
    """
    import matplotlib.pyplot as plt  # lazily: matplotlib is an optional dependency

    if curves is None:
        curves = prevalence_sensitivity(error=error)
    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    else:
        fig = axes[0].figure
    eps = curves.attrs.get("error", error)
    titles = {
        "independent": "independent Bernoulli(p) draws",
        "flip": f"flip with eps = {eps:g}",
    }
    styles = {"F": "-", "AC1": "--", "PB": ":"}
    for ax, generator in zip(axes, ["independent", "flip"]):
        panel = curves.agreement.sel(generator=generator)
        for baseline in panel.baseline.values:
            ax.plot(
                panel.prevalence,
                panel.sel(baseline=baseline),
                styles.get(str(baseline), "-"),
                label=str(baseline),
            )
        ax.axhline(0, color="0.7", linewidth=0.8)
        ax.set_title(titles[generator])
        ax.set_xlabel("prevalence p")
        ax.set_xlim(0, 1)
    axes[0].set_ylabel("coefficient")
    axes[0].legend(title="baseline")
    return fig
