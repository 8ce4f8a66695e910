"""The single-label report: agreement on single-choice annotation (one category per item and
annotator) in one call, rendered as text, markdown, HTML and JSON like the other reports.

:func:`single_label_report` runs the kappa family (:func:`xr_agreement.fleiss`,
:func:`~xr_agreement.conger`, :func:`~xr_agreement.cohen`, :func:`~xr_agreement.gwet`,
:func:`~xr_agreement.brennan_prediger`, :func:`~xr_agreement.percent`) and nominal
Krippendorff's alpha (:func:`xr_agreement.alpha`) on an (item, annotator) array of ratings,
with their standard errors and intervals, and shows the categories' prevalence and
category-vs-rest coefficients, the confusion (coincidence) table between annotators, Cohen's
kappa per annotator pair and each annotator's use of the categories. It is not the
multi-label (MLA) report: the categories are mutually exclusive, one per rating.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from .._core.attrs import from_json_attr
from .._core.validate import check_dataarray
from .render import (_dataset_from_dict, _interval_settings, _json_safe, _plain,
                     _render_html, _RenderedReport)
from .single_sections import COEFFICIENTS, DEFAULT_LEVEL, document, MAX_PAIR_ANNOTATORS

SINGLE_JSON_FORMAT = "xr-agreement-single-label-report/1"

CI_METHODS = ("analytic", "percentile", "bca")


def single_label_report(
    ratings: xr.DataArray,
    *,
    ci: float | None = None,
    ci_method: str = "analytic",
    n_resamples: int | None = None,
    seed=None,
    progress: bool | None = None,
    digits: int = 3,
    landis_koch: bool = False,
    title: str | None = None,
    notes: Sequence[str] = (),
    item: str = "item",
    annotator: str = "annotator",
) -> SingleLabelReport:
    """The agreement report of single-label ratings: the kappa family with standard errors,
    nominal alpha, the categories, the confusion table between annotators, the pairs and the
    annotators.

    Parameters
    ----------
    ratings : xarray.DataArray
        Ratings with dims ``item`` and ``annotator`` only: one category per item and
        annotator (text or numbers), NaN/None where an annotator gave none, as
        ``read_annotations(path, "single")`` returns. Its attrs, when present, are stated in
        the report: ``categories`` (the declared categories, a list or its JSON text:
        every coefficient then counts them, used or not), ``reader``, ``dropped``,
        ``notes`` and ``single_label`` (why the file was read as single-label ratings).
    ci : float, optional
        Level of the intervals (default 0.95, the functions' own default).
    ci_method : {"analytic", "percentile", "bca"}, default "analytic"
        "analytic": the functions' standard errors and limits (Gwet's t-based ones; for
        Cohen's kappa per pair the asymptotic standard error with normal limits; for alpha
        Gwet's). A bootstrap method: the functions' item bootstrap at level ``ci`` (no
        standard errors; every function resamples with the same ``seed``).
    n_resamples : int, optional
        Bootstrap resamples (the functions' default, 1000, when unset); only with a
        bootstrap ``ci_method``.
    seed : int or numpy.random.Generator, optional
        Seed of the bootstrap; only with a bootstrap ``ci_method``.
    progress : bool, optional
        Progress bars of the bootstrap (by default when stderr is a terminal).
    digits : int, default 3
        Decimals in the text, markdown and HTML renderings (JSON keeps full precision).
    landis_koch : bool, default False
        Add the Landis-Koch verbal band next to the coefficients (opt-in).
    title : str, optional
    notes : sequence of str
        Further statements printed under the headline.
    item, annotator : str
        Names of the dims that play these roles.

    Returns
    -------
    SingleLabelReport
        ``.results`` (``{name: Dataset}`` of ``fleiss``, ``conger``, ``cohen``, ``gwet``,
        ``brennan_prediger``, ``percent`` and ``alpha``, each the public function's result
        on the ratings; no ``cohen`` above 200 annotators, whose annotator x annotator pair
        tables grow as their square: the report says so), ``.facts`` (the data: sizes, categories declared and used,
        ratings per category and annotator, what a reader noted) and ``.settings``; renders
        with ``str()``, ``.to_markdown()``, ``.to_html()``, ``.to_json()``.

    Raises
    ------
    ValueError
        Other dims than ``item`` and ``annotator`` (multi-label decisions: use
        :func:`xr_agreement.report`), fewer than two annotators, a rating outside the
        declared categories, bootstrap options with ``ci_method="analytic"``, a negative
        ``digits``, or any input error of the coefficients.

    Examples
    --------
    >>> import xarray as xr, xr_agreement
    >>> ratings = xr.DataArray(
    ...     [list(r) for r in ["PPP", "PPN", "NNN", "PPP", "NPN", "GGG", "PNP", "NNN", "PPP",
    ...                        "GPG"]],
    ...     dims=("item", "annotator"), coords={"annotator": ["A", "B", "C"]})
    >>> rep = xr_agreement.single_label_report(ratings)
    >>> round(rep.summary()["coefficient"]["fleiss"], 6)
    0.563636
    >>> print(rep.to_markdown().splitlines()[0])
    # Single-label agreement report
    >>> rep.facts["categories_used"]
    ['G', 'N', 'P']
    """
    check_dataarray(ratings, "ratings")
    _check_dims(ratings, item, annotator)
    if not isinstance(digits, (int, np.integer)) or isinstance(digits, bool) or digits < 0:
        raise ValueError(f"digits must be a non-negative integer, got {digits!r}")
    if ci_method not in CI_METHODS:
        raise ValueError(f"ci_method must be one of {list(CI_METHODS)}, got {ci_method!r}")
    options = {"n_resamples": n_resamples, "seed": seed}
    if ci_method == "analytic":
        given = sorted(name for name, value in options.items() if value is not None)
        if given:
            raise ValueError(f"{given} only apply to a bootstrap interval (ci_method="
                             "'percentile' or 'bca'); the analytic intervals need none")
    declared = _declared(ratings.attrs.get("categories"))
    level = DEFAULT_LEVEL if ci is None else ci
    keywords = {"categories": declared, "item": item, "annotator": annotator,
                "ci": level, "ci_method": ci_method}
    if ci_method != "analytic":
        keywords.update({name: value for name, value in options.items() if value is not None},
                        progress=progress)
    results = _computed(ratings, keywords)
    settings = {
        **_interval_settings(ci, seed, {"n_resamples": n_resamples}),
        "level": float(level),
        "ci_method": ci_method,
        "digits": int(digits),
        "landis_koch": bool(landis_koch),
        "title": title,
        "notes": [notes] if isinstance(notes, str) else [str(n) for n in notes],
        "dims": {"item": item, "annotator": annotator},
    }
    return SingleLabelReport(results, _facts(ratings, results, declared, item, annotator),
                             settings)


def _check_dims(ratings, item, annotator) -> None:
    dims = list(ratings.dims)
    if item not in dims or annotator not in dims or len(dims) != 2:
        extra = [d for d in dims if d not in (item, annotator)]
        hint = (" (multi-label 0/1 decisions: use xr_agreement.report)" if extra else "")
        raise ValueError(
            f"single_label_report() needs ratings with the dims {item!r} and {annotator!r} "
            f"only (one category per item and annotator); the array has dims {dims}{hint}")


def _declared(value) -> list | None:
    categories = from_json_attr(value)
    if categories is None:
        return None
    if isinstance(categories, (str, bytes)) or not isinstance(categories, (list, tuple,
                                                                           np.ndarray)):
        raise ValueError(f"attrs['categories'] must be a list of the categories (or its "
                         f"JSON text), got {value!r}")
    return [_plain(c) for c in categories]


def _computed(ratings, keywords) -> dict:
    """Each coefficient's Dataset, from the public functions (computed: dask input gives
    lazy results)."""
    import xr_agreement as xa

    results = {}
    for name, _ in COEFFICIENTS:
        if name == "cohen" and ratings.sizes[keywords["annotator"]] > MAX_PAIR_ANNOTATORS:
            continue  # n^2 pair tables: section 5 says so
        if name == "alpha":
            # the categories Fleiss' kappa found: alpha gives its coincidence table on dask
            # input only with categories= (the same ones: the numbers do not change)
            found = [_plain(c) for c in results["fleiss"]["category"].values]
            result = xa.alpha(ratings, "nominal", label=None,
                              **{**keywords, "categories": keywords["categories"] or found})
        else:
            result = getattr(xa, name)(ratings, **keywords)
        results[name] = result.compute()
    return results


def _facts(ratings, results, declared, item, annotator) -> dict:
    """Facts of the ratings that the coefficients' Datasets do not hold (JSON-safe)."""
    categories = [_plain(c) for c in results["fleiss"]["category"].values]
    counts, rated = _counted(ratings, categories, item, annotator)
    items = [_plain(v) for v in ratings[item].values]
    used = [c for c, n in zip(categories, counts.sum(axis=0)) if n > 0]
    attrs = ratings.attrs
    reading_notes = from_json_attr(attrs.get("notes")) or []
    if isinstance(reading_notes, str):
        reading_notes = [reading_notes]
    dropped = from_json_attr(attrs.get("dropped"))
    n_ratings = int(counts.sum())
    return {
        "reader": None if attrs.get("reader") is None else str(attrs["reader"]),
        "dropped": None if dropped is None else {
            str(reason): ({str(k): int(v) for k, v in per.items()} if isinstance(per, dict)
                          else per) for reason, per in dropped.items()},
        "reading_notes": [str(n) for n in reading_notes],
        "single_label": None if attrs.get("single_label") is None else str(
            attrs["single_label"]),
        "n_items": int(ratings.sizes[item]),
        "n_annotators": int(ratings.sizes[annotator]),
        "annotators": [_plain(v) for v in ratings[annotator].values],
        "categories": categories,
        "categories_declared": declared,
        "categories_used": used,
        "categories_unused": [c for c in categories if c not in used],
        "n_ratings": n_ratings,
        "n_missing": int(ratings.sizes[item] * ratings.sizes[annotator] - n_ratings),
        "ratings_per_item": {"min": int(rated.min()), "median": float(np.median(rated)),
                             "max": int(rated.max())},
        "items_with_fewer_than_two_ratings": [v for v, n in zip(items, rated) if n < 2],
        # rows the annotators, columns the categories
        "ratings_per_annotator": counts.tolist(),
    }


# ratings encoded at a time (items x annotators cells): memory bounded on crowd designs
COUNT_BLOCK = 1 << 22


def _counted(ratings, categories, item, annotator) -> tuple[np.ndarray, np.ndarray]:
    """Ratings per (annotator, category) and per item, from the ratings encoded a block of
    items at a time (a dask block computed in its turn). One-hot floats of the whole array
    took 21 s and 5.5 GB for 20,000 tasks x 5,000 crowd workers."""
    from .._core.categorical import encode_ratings

    ordered = ratings.transpose(item, annotator)
    n_items, n_annotators = ordered.shape
    q = len(categories)
    counts = np.zeros(n_annotators * q, np.int64)
    rated = np.zeros(n_items, np.int64)
    step = max(1, COUNT_BLOCK // max(n_annotators, 1))
    columns = np.arange(n_annotators, dtype=np.int64) * q
    for start in range(0, n_items, step):
        block = ordered.isel({item: slice(start, start + step)}).compute()
        codes, _ = encode_ratings(block, categories)
        given = codes >= 0
        rated[start:start + len(codes)] = given.sum(axis=1)
        cells = (columns[None, :] + codes)[given]
        counts += np.bincount(cells, minlength=len(counts))
    return counts.reshape(n_annotators, q), rated


class SingleLabelReport(_RenderedReport):
    """The single-label report: the coefficients' results and their renderings. Build it
    with :func:`single_label_report`, restore one with :meth:`from_json`.

    Attributes
    ----------
    results : dict
        ``{name: Dataset}``: the results of :func:`xr_agreement.fleiss`, ``conger``,
        ``cohen`` (not above 200 annotators), ``gwet``, ``brennan_prediger``, ``percent``
        and ``alpha(..., metric="nominal")`` on the ratings.
    facts : dict
        Facts of the ratings (sizes, categories declared and used, ratings per annotator
        and category, items with fewer than two ratings, what a reader dropped or noted).
    settings : dict
        The choices the report was made with.
    """

    _json_format = SINGLE_JSON_FORMAT
    _kind = "xr-agreement single-label report"

    def __init__(self, results: dict, facts: dict, settings: dict):
        self.results, self.facts, self.settings = results, facts, settings

    def to_html(self) -> str:
        """The report as one self-contained HTML document (inline CSS)."""
        return _render_html(self._document(), {}, standalone=True,
                            document_title=self.settings["title"]
                            or "Single-label agreement report")

    def _repr_html_(self) -> str:
        return _render_html(self._document(), {}, standalone=False)

    def to_dict(self) -> dict:
        """Plain-Python form: the summary, settings, facts and each result Dataset in
        xarray's ``to_dict`` layout (NaN as None)."""
        return _json_safe({
            "summary": self.summary(),
            "format": SINGLE_JSON_FORMAT,
            "settings": self.settings,
            "facts": self.facts,
            "results": {name: ds.to_dict(data="list") for name, ds in self.results.items()},
        })

    def summary(self) -> dict:
        """The headline values: each coefficient with its bounds (None where the result
        has none), and the sizes."""
        out = {"coefficient": {}, "lower": {}, "upper": {}}
        for name, _ in COEFFICIENTS:
            ds = self.results.get(name)
            if ds is None:  # Cohen's pairs above MAX_PAIR_ANNOTATORS annotators
                for part in out.values():
                    part[name] = None
                continue
            value = "alpha" if name == "alpha" else "coefficient"
            out["coefficient"][name] = float(ds[value])
            for bound in ("lower", "upper"):
                variable = f"{value}_{bound}"
                out[bound][name] = float(ds[variable]) if variable in ds else None
        return {**out, **{name: self.facts[name] for name in (
            "n_items", "n_annotators", "n_ratings", "n_missing")},
            "n_categories": len(self.facts["categories"]), "reader": self.facts["reader"]}

    @classmethod
    def from_json(cls, text: str) -> SingleLabelReport:
        """Restore a SingleLabelReport from :meth:`to_json` output."""
        data = cls._json_data(text)
        return cls({name: _dataset_from_dict(ds) for name, ds in data["results"].items()},
                   data["facts"], data["settings"])

    def _document(self) -> list:
        return document(self)

