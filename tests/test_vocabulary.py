"""The vocabulary of docs/vocabulary.md, checked on the outputs of every public function.

Each public function runs on a few small inputs (multi-label decisions, single-label ratings,
with and without intervals of each method); every output variable must then follow the
patterns: level prefixes, interval bounds, counts, attrs. A new function or variable that
breaks the vocabulary fails here.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
import xarray as xr

import xr_agreement

LEVEL_PREFIXES = {  # dim -> prefix a variable over that dim must carry
    "item": "item_",
    "label": "label_",
    "category": "category_",
    "annotator_1": "pair_",
    "annotator_2": "pair_",
    "annotator": "annotator_",
    "document": "document_",
}
# the combined order of prefixes: pair_ then category_ (as in pair_category_coefficient)
PREFIX_ORDER = ("annotator_", "pair_", "label_", "category_", "item_", "document_")
NOT_LEVELS = {"baseline", "average", "resample", "replicate", "round", "paired_category"}
OLD_NAMES = {
    "ci_lower", "ci_upper", "se", "mean_coefficient", "n_common_items",
    "label_pairable_values", "category_pairable_values", "prevalence",
    "positive_agreement", "negative_agreement", "human_label_agreement",
}
MATRICES = {"coincidence", "expected_coincidence"}  # a matrix over category x paired_category, not a level value
# confusions(): matrices over label x other_label, not label-level values
MATRICES |= {"co_selection", "substitution", "n_disagreeing_pairs", "substitution_rate"}
# annotators(): names fixed by its definition (docs/vocabulary.md lists them): the corpus
# coefficient without each annotator, items each annotated, prevalence per annotator and label
ANNOTATOR_NAMES = {"agreement_without", "n_items_annotated", "annotator_prevalence"}
# span_f1's per-label pair values keep the names issue 29 gives them (label_pair_f1, ...);
# every other family puts pair_ first (pair_label_...): docs/vocabulary.md says so
SPAN_F1_LABEL_PAIR = {"label_pair_f1", "label_pair_n_matched", "label_pair_n_spans",
                      "label_pair_undefined_reason"}

# Names whose long_name and description differ between outputs on purpose: each family's own
# value of a kind that docs/vocabulary.md defines per family ("the family's coefficient"), or
# one value described by each function that reports it. Any other name used with two
# descriptions fails test_one_name_one_meaning: the two would clash in ``xr.merge`` and a
# reader could not tell which one they hold (as ``label_weight`` did, MLA's 1 - A_e,j and
# alpha's (n_j / mean n_j) D_e,j, before alpha's became ``label_alpha_weight``).
FAMILY_VALUES = {
    # the family's coefficient and its observed and chance terms
    "coefficient", "observed", "expected", "label_observed", "label_expected",
    "pair_coefficient", "pair_observed", "pair_expected",
    # Krippendorff's alpha of each kind (a metric, unitizing 2004 or 2016) and its terms
    "alpha", "observed_disagreement", "expected_disagreement", "label_alpha",
    "label_observed_disagreement", "label_expected_disagreement", "coincidence",
    # F1 of spans between annotators; of the judge against the reference
    "f1", "label_f1",
    # MLA's coefficient and prevalence: computed (mla), analytic (prevalence_sensitivity,
    # analytic_flip), recalled beside the annotators' values (annotators)
    "agreement", "label_prevalence",
    # what is pairable depends on the family's unit (ratings, label cells, positions)
    "n_pairable_items", "n_pairable_values",
}


def multi_label(seed=0, n_items=12, n_annotators=4, n_labels=5, missing=True):
    rng = np.random.default_rng(seed)
    values = (rng.random((n_items, n_annotators, n_labels)) < 0.35).astype(float)
    if missing:  # annotators who skipped an item, and single decisions not made
        values[rng.random((n_items, n_annotators)) < 0.15] = np.nan
        values[rng.random(values.shape) < 0.03] = np.nan
    return xr.DataArray(
        values,
        dims=("item", "annotator", "label"),
        coords={
            "item": [f"doc-{i:03d}" for i in range(n_items)],
            "annotator": [f"ann-{a}" for a in "abcdefgh"[:n_annotators]],
            "label": [f"topic-{j}" for j in range(n_labels)],
        },
    )


def single_label(seed=1, n_items=15, n_annotators=4):
    rng = np.random.default_rng(seed)
    values = rng.choice(np.array(["neg", "neu", "pos"], dtype=object), (n_items, n_annotators))
    values[rng.random(values.shape) < 0.1] = None
    return xr.DataArray(
        values,
        dims=("item", "annotator"),
        coords={
            "item": [f"doc-{i:03d}" for i in range(n_items)],
            "annotator": [f"ann-{a}" for a in "abcdefgh"[:n_annotators]],
        },
    )


def numeric_ratings(seed=2, n_items=15, n_annotators=3):
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 6, (n_items, n_annotators)).astype(float)
    values[0, 0] = np.nan
    return xr.DataArray(values, dims=("item", "annotator"))


BOOT = {"n_resamples": 30, "seed": 0}


def span_table(seed=3):
    """A small span table: string ids, nested and touching spans, a document one annotator
    did not annotate."""
    rng = np.random.default_rng(seed)
    documents = [f"doc-{d}" for d in range(6)]
    annotators = ["ann-a", "ann-b", "ann-c"]
    records, annotated = [], []
    for d, doc in enumerate(documents):
        for a, ann in enumerate(annotators):
            if (d + a) % 5 == 4:
                continue  # not annotated
            annotated.append((doc, ann))
            for start in range(0, 40, 10):
                if rng.random() < 0.6:
                    records.append((doc, ann, start, start + int(rng.integers(2, 10)),
                                    f"type-{rng.integers(3)}"))
    return xr_agreement.from_spans(records, lengths={doc: 45 for doc in documents},
                                   annotated=annotated,
                                   labels=["type-0", "type-1", "type-2", "type-3"])


def _outputs():
    """(case name, callable) for every public function returning a Dataset."""
    ml = multi_label()
    # set metrics compare whole label sets: an annotation is made or skipped as a whole
    complete_vectors = ml.where(~(ml.isnull() & ml.notnull().any("label")), 0)
    sl = single_label()
    num = numeric_ratings()
    judge = "ann-a"
    spans = span_table()
    cases = {
        "span mla": lambda: spans.agreement.mla(baseline="all"),
        "span mla percentile": lambda: spans.agreement.mla(ci=0.9, **BOOT),
        "span alpha": lambda: spans.agreement.alpha(),
        "span f1 exact": lambda: spans.agreement.span_f1(),
        "span f1 overlap": lambda: spans.agreement.span_f1("overlap"),
        "unitizing alpha 2004": lambda: spans.agreement.unitizing_alpha(),
        "unitizing alpha 2016": lambda: xr_agreement.from_spans(
            [("d", "a", 0, 4, "x"), ("d", "b", 1, 4, "x"), ("d", "a", 6, 9, "y"),
             ("d", "b", 6, 8, "y")], lengths={"d": 12}).agreement.unitizing_alpha(
                 "krippendorff2016"),
        "gamma": lambda: spans.agreement.gamma(n_samples=5, seed=0),
        "gamma alignment": lambda: spans.agreement.gamma(n_samples=5, seed=0,
                                                         return_alignment=True),
        "mla": lambda: ml.agreement.mla(),
        "mla all baselines": lambda: ml.agreement.mla(baseline="all"),
        "mla percentile": lambda: ml.agreement.mla(ci=0.9, **BOOT),
        "mla bca": lambda: ml.agreement.mla(ci=0.9, ci_method="bca", **BOOT),
        "alpha masi": lambda: complete_vectors.agreement.alpha(metric="masi"),
        "alpha label sets": lambda: complete_vectors.agreement.alpha(),  # nominal on sets
        "alpha hamming": lambda: ml.agreement.alpha(metric="hamming"),
        "alpha nominal": lambda: sl.agreement.alpha(metric="nominal", label=None),
        "alpha interval": lambda: num.agreement.alpha(metric="interval", label=None),
        "alpha percentile": lambda: num.agreement.alpha(
            metric="interval", label=None, ci=0.9, ci_method="percentile", **BOOT),
        "versus": lambda: ml.agreement.versus(judge),
        "versus percentile": lambda: ml.agreement.versus(judge, ci=0.9, **BOOT),
        "augmented_kappa": lambda: ml.fillna(0).agreement.augmented_kappa(),
        "boot_f1": lambda: ml.fillna(0).agreement.boot_f1(n_chance_runs=20, seed=0),
        "masi": lambda: ml.fillna(0).agreement.masi(),
        "am": lambda: ml.fillna(0).agreement.am(),
        "annotators": lambda: ml.agreement.annotators(),
        "annotators all baselines": lambda: ml.agreement.annotators(baseline="all"),
        "annotators percentile": lambda: ml.agreement.annotators(ci=0.9, **BOOT),
        "confusions": lambda: ml.agreement.confusions(),
        "prevalence_sensitivity": lambda: xr_agreement.prevalence_sensitivity([0.1, 0.5]),
        "analytic_flip": lambda: xr_agreement.analytic_flip([0.1, 0.5]),
    }
    for name in ("fleiss", "conger", "gwet", "brennan_prediger", "percent", "cohen"):
        cases[f"{name} single-label"] = (
            lambda name=name: getattr(sl.agreement, name)(label=None))
        cases[f"{name} multi-label"] = lambda name=name: getattr(ml.agreement, name)()
        cases[f"{name} percentile"] = (
            lambda name=name: getattr(sl.agreement, name)(
                label=None, ci=0.9, ci_method="percentile", **BOOT))
    return cases


CASES = _outputs()


class Computed(dict):
    """Each case's output (``cases``: name -> callable), computed on first use (one failing
    case fails only its tests); the other tests of every output use it too."""

    def __init__(self, cases: dict):
        super().__init__()
        self._cases = cases

    def __missing__(self, case):
        self[case] = self._cases[case]()
        return self[case]


@pytest.fixture(scope="module")
def results():
    return Computed(CASES)


def _expected_prefix(dims) -> str:
    levels = []
    for dim in dims:
        prefix = LEVEL_PREFIXES.get(dim)
        if prefix and prefix not in levels:
            levels.append(prefix)
    return "".join(sorted(levels, key=PREFIX_ORDER.index))


def _named(ds: xr.Dataset) -> dict:
    """The variables the vocabulary names: the data variables and the reasons, which are
    coordinates (docs/vocabulary.md)."""
    reasons = {name: ds[name] for name in ds.coords if name.endswith("_reason")}
    return {**ds.data_vars, **reasons}


def _base(name: str) -> str:
    return re.sub(r"_(lower|upper|replicates)$", "", name)


@pytest.mark.parametrize("case", sorted(CASES))
def test_level_prefixes(results, case):
    ds = results[case]
    for name, variable in _named(ds).items():
        if name in MATRICES or _base(name) in MATRICES or _base(name) in ANNOTATOR_NAMES \
                or name in SPAN_F1_LABEL_PAIR:
            continue
        expected = _expected_prefix(variable.dims)
        assert name.startswith(expected), (
            f"{case}: {name!r} over {variable.dims} should start with {expected!r}")
        if not expected:
            assert not any(name.startswith(p) for p in ("label_", "item_", "category_", "pair_")), (
                f"{case}: {name!r} has a level prefix but no level dim ({variable.dims})")


@pytest.mark.parametrize("case", sorted(CASES))
def test_attrs_and_old_names(results, case):
    ds = results[case]
    for name, variable in _named(ds).items():
        assert name not in OLD_NAMES, f"{case}: {name!r} is an old name (docs/vocabulary.md)"
        assert variable.attrs.get("long_name"), f"{case}: {name!r} has no long_name"
        assert variable.attrs.get("description"), f"{case}: {name!r} has no description"
    assert "confidence" not in ds.attrs, f"{case}: attrs['confidence'] is now 'ci_level'"
    if "reference" in ds.attrs:
        reference = ds.attrs["reference"]
        assert isinstance(reference, str) and re.search(r"\(?(1[89]|20)\d\d", reference), (
            f"{case}: attrs['reference'] should be a citation, got {reference!r}")


@pytest.mark.parametrize("case", sorted(CASES))
def test_bounds(results, case):
    ds = results[case]
    bounds = [name for name in ds.data_vars if name.endswith(("_lower", "_upper"))]
    for name in bounds:
        base = _base(name)
        assert base in ds.data_vars, f"{case}: {name!r} bounds a variable that is not there"
        other = base + ("_upper" if name.endswith("_lower") else "_lower")
        assert other in ds.data_vars, f"{case}: {name!r} without {other!r}"
        assert ds[name].dims == ds[base].dims
    if bounds:
        assert ds.attrs.get("ci_method") in {"analytic", "percentile", "bca"}, case
        assert 0 < ds.attrs.get("ci_level", 0) < 1, case
        if ds.attrs["ci_method"] != "analytic":
            assert ds.attrs.get("ci_n_resamples") == BOOT["n_resamples"], case
            assert ds.attrs.get("ci_resampling_unit") in {"item", "annotator", "both",
                                                          "document"}, case
    for name in ds.data_vars:
        if name.endswith("_se"):
            assert name[: -len("_se")] in ds.data_vars, f"{case}: {name!r} without its value"


@pytest.mark.parametrize("case", sorted(CASES))
def test_counts(results, case):
    ds = results[case]
    for name, variable in ds.data_vars.items():
        if variable.dtype.kind in "iu" and not name.endswith("_replicates"):
            plain = re.sub(r"^(annotator_|pair_|label_|category_|item_|document_)+", "", name)
            confusion = plain in {"true_positives", "false_positives", "false_negatives",
                                  "true_negatives"} or plain.startswith(("abstentions_", "ties",
                                                                        "no_reference",
                                                                        "judge_missing"))
            assert plain.startswith("n_") or confusion, (
                f"{case}: the count {name!r} should be named n_<things>")


@pytest.mark.parametrize("case", sorted(CASES))
def test_undefined_reason_is_text(results, case):
    """Reasons are text, and coordinates: the data variables take arithmetic."""
    ds = results[case]
    for name in ds.variables:
        if name.endswith("undefined_reason"):
            assert ds[name].dtype.kind in "OU", f"{case}: {name!r} should be text"
            assert name in ds.coords and name not in ds.data_vars, (
                f"{case}: {name!r} should be a coordinate")


def test_one_name_one_meaning(results):
    """A name means one thing in every output: the same long_name and description wherever
    it appears, but for the family values of FAMILY_VALUES. Interval bounds, standard
    errors and replicates take their meaning from their variable (their descriptions name
    the interval's method); the ``*undefined_reason`` texts name their family's value."""
    meanings = {}
    for case in sorted(CASES):
        for name, variable in results[case].data_vars.items():
            if name != _base(name) or name.endswith(("_se", "undefined_reason")):
                continue
            meaning = (variable.attrs.get("long_name"), variable.attrs.get("description"))
            meanings.setdefault(name, {}).setdefault(meaning, case)
    clashes = {name: sorted(found.values()) for name, found in meanings.items()
               if len(found) > 1 and name not in FAMILY_VALUES}
    assert not clashes, f"names with two meanings (output cases using each): {clashes}"
    stale = {name for name in FAMILY_VALUES if len(meanings.get(name, ())) < 2}
    assert not stale, f"FAMILY_VALUES lists names with one meaning now: {sorted(stale)}"


def test_cohen_pairs_are_a_matrix():
    ds = single_label().agreement.cohen(label=None)
    assert ds.pair_coefficient.dims == ("annotator_1", "annotator_2")
    annotators = list(single_label().annotator.values)
    assert list(ds.annotator_1.values) == annotators == list(ds.annotator_2.values)


@pytest.mark.parametrize("name", ["augmented_kappa", "boot_f1", "masi"])
def test_compare_pairs_are_a_matrix(name):
    da = multi_label().fillna(0)
    options = {"n_chance_runs": 10, "seed": 0} if name == "boot_f1" else {}
    ds = getattr(da.agreement, name)(**options)
    pair = [v for v in ds.data_vars if v.startswith("pair_")]
    assert pair, name
    for variable in pair:
        values = ds[variable]
        assert values.dims == ("annotator_1", "annotator_2")
        assert np.isnan(np.diag(values.values)).all(), f"{name}: {variable} diagonal"
        np.testing.assert_array_equal(values.values, values.values.T)


KEYWORDS_RETIRED = {"confidence", "method", "replicates", "repeats", "columns"}


def test_public_keywords():
    """Retired keywords are gone, interval keywords are the same everywhere."""
    for name in xr_agreement.__all__:
        function = getattr(xr_agreement, name)
        if not inspect.isfunction(function):
            continue
        parameters = inspect.signature(function).parameters
        retired = KEYWORDS_RETIRED & set(parameters)
        if name == "unitizing_alpha":
            # method= picks Krippendorff's coefficient (2004 or 2016), as issue 29 names it;
            # the retired method= was the interval method, now ci_method=
            retired -= {"method"}
        assert not retired, f"{name} still takes {retired}"
        if "ci" in parameters:
            assert "ci_method" in parameters, f"{name} takes ci= without ci_method="
        if "n_resamples" in parameters:
            assert "ci" in parameters, f"{name}: n_resamples= means bootstrap resamples only"
    for name in ("fleiss", "conger", "gwet", "brennan_prediger", "percent", "cohen"):
        assert "population_size" in inspect.signature(getattr(xr_agreement, name)).parameters


def test_accessor_shows_real_signatures():
    da = multi_label()
    for name, method in inspect.getmembers(type(da.agreement), inspect.isfunction):
        if name.startswith("_"):
            continue
        function = getattr(xr_agreement, name)
        accessor_parameters = list(inspect.signature(method).parameters)[1:]  # drop self
        function_parameters = list(inspect.signature(function).parameters)[1:]  # drop da
        assert accessor_parameters == function_parameters, name
        assert "**kwargs" not in str(inspect.signature(method)) or "**" in str(
            inspect.signature(function)), name
        assert method.__doc__ and function.__name__ in method.__doc__, name


def test_diagnostics_pairs_are_a_matrix():
    da = multi_label()
    ds = da.agreement.annotators()
    annotators = list(da.annotator.values)
    for name in ("pair_observed", "pair_agreement"):
        assert ds[name].dims == ("annotator_1", "annotator_2")
        assert np.isnan(np.diag(ds[name].values)).all(), name
        np.testing.assert_array_equal(ds[name].values, ds[name].values.T)
    assert list(ds.annotator_1.values) == annotators == list(ds.annotator_2.values)
    table = da.agreement.confusions()
    assert table.substitution.dims == ("label", "other_label")
    assert list(table.other_label.values) == list(da.label.values)
