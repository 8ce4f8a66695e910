"""The kappa family against its peers: the targets of issue 30, side by side in one run.

    python benchmarks/bench_kappa.py [--repeats N] [--quick]

Single-label inputs: 5 annotators, 3 categories, 5% of the ratings missing, string ids on every
dim (benchmarks/corpora.py; importing it compiles every kernel call). Peers that accept only
complete data get the complete items (statsmodels) or the pair's common items (scikit-learn);
those that count per item get the count table built by ``np.bincount``, the cheapest correct
way, inside their timed call (the ``agreement`` package's own ``pivot_table_frequency`` builds
dense one-hot arrays of ratings x items and cannot run at 10^5 items). Every call of ours is
as a user makes it: default arguments, so with the analytic standard error and its limits.

Rows and targets (ratios of medians; PASS/MISS judged on the unrounded ratio):

1. 50 items: ``fleiss``, ``conger``, ``gwet``, ``brennan_prediger``, ``percent``, ``cohen``
   (all 10 pairs) / statsmodels ``fleiss_kappa(aggregate_raters(complete))`` [<= 3x];
   scikit-learn's one pair beside them for information.
2. 100,000 items: statsmodels / each of the same calls [>= 10x]; scikit-learn
   ``cohen_kappa_score`` on one pair / ``cohen()`` on all 10 [>= 2x]; for information, the
   ``agreement`` package's Scott's pi (Fleiss), Gwet's gamma (AC1) and Cohen's kappa of
   Gwet's form (Conger) against ours.
3. Multi-label, (50,000 items, 5 annotators, 50 labels) uint8 0/1: ``fleiss()`` and
   ``cohen()`` / one ``mla()`` call on the same array [<= 3x].
4. ``alpha`` (nominal, default arguments) at 50 items / ``interrater``'s
   ``krippendorff_alpha`` and ``agreement.metrics.krippendorffs_alpha`` [<= 1x]; these peers
   handle missing ratings and get every item.

Values are checked with ``assert`` wherever a peer computes the same number, so a wrong
number fails the benchmark: statsmodels' Fleiss and the agreement package's Scott's pi, AC1
and Conger kappa against ours on the complete items, scikit-learn's Cohen against our pair on
the pair's common items, both peers' alpha against ours on all items, and on multi-label input
``fleiss()``'s coefficient against ``mla()``'s (the same pooled coefficient). The tolerance is
1e-12 throughout: each peer evaluates the same closed form (the agreement package's alpha is
Gwet's rewriting of Krippendorff's, algebraically equal), so only rounding separates them, at
around 1e-15.

Times are medians after one warm-up call of each function, the functions of a case called in
alternation, in a shuffled order each round (bench_table's reasons: the shared machine has
slow and fast phases, and a call right after a large one finds the caches cold). A call whose
warm-up took over 2 s is repeated fewer times (as many as fit in about 45 s, at least 1); the
output says how many. Optional peers (statsmodels, scikit-learn, agreement, interrater) that
are not installed are reported and skipped. ``--quick`` runs the 50-item cases and cases 2
and 3 at 2,000 items, a smoke test whose large-case ratios are not judged.
"""

from __future__ import annotations

import argparse
import importlib
import math
import time

import numpy as np

import xr_agreement
from bench_table import side_by_side
from corpora import with_string_ids

KAPPA_FAMILY = ("fleiss", "conger", "gwet", "brennan_prediger", "percent", "cohen")
SLOW_CALL = 2.0  # seconds: a call slower than this gets fewer repeats
SLOW_BUDGET = 45.0  # seconds of repeats for such a call
TOLERANCE = 1e-12


def optional(module: str):
    """The peer's module, or None (reported) when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        print(f"  {module.split('.')[0]}: not installed, its rows skipped")
        return None


def timed(functions: dict, repeats: int) -> tuple[dict, dict]:
    """name -> (median seconds, calls timed, whether fewer than ``repeats``), and name -> what
    the warm-up call returned (for the value checks). After one warm-up call each, the
    functions are timed in alternation (bench_table.side_by_side); a slow one (warm-up over
    SLOW_CALL) on its own, fewer times."""
    counts, results = {}, {}
    for name, function in functions.items():
        start = time.perf_counter()
        results[name] = function()
        spent = time.perf_counter() - start
        counts[name] = repeats if spent <= SLOW_CALL else max(1, min(repeats,
                                                                    int(SLOW_BUDGET / spent)))
    fast = {name: f for name, f in functions.items() if counts[name] == repeats}
    medians = side_by_side(fast, repeats, warm=()) if fast else {}
    for name in functions.keys() - fast.keys():
        medians.update(side_by_side({name: functions[name]}, counts[name], warm=()))
    return ({name: (medians[name], counts[name], counts[name] < repeats)
             for name in functions}, results)


def two_figures(x: float) -> str:
    """``x`` to 2 significant figures, without an exponent."""
    if not math.isfinite(x) or x == 0:
        return f"{x:g}"
    rounded = float(f"{x:.2g}")
    return f"{rounded:,.{max(0, 1 - math.floor(math.log10(abs(rounded))))}f}"


def duration(result) -> str:
    seconds, calls, fewer = result
    text = f"{seconds * 1e3:10.3f} ms" if seconds < 1 else f"{seconds:10.2f} s "
    return text + (f"  (median of {calls}: slower than {SLOW_CALL:g} s)" if fewer else "")


def row(ours: str, peer: str, times: dict, target: float | None, faster: bool, judged: bool):
    """One ratio line: ``faster`` rows print peer / ours (target: at least ``target``x),
    the others ours / peer (target: at most ``target``x); ``target`` None is information."""
    if faster:
        ratio, text = times[peer][0] / times[ours][0], f"{peer} / {ours}"
        verdict = ratio >= target if target else None
        target_text = f">= {target:g}x" if target else "info"
    else:
        ratio, text = times[ours][0] / times[peer][0], f"{ours} / {peer}"
        verdict = ratio <= target if target else None
        target_text = f"<= {target:g}x" if target else "info"
    mark = "" if verdict is None else ("PASS" if verdict else "MISS") if judged else "(quick)"
    print(f"  {text:<40} {two_figures(ratio):>8}x   target {target_text:<8} {mark}")


def times_table(times: dict):
    for name, result in times.items():
        print(f"    {name:<30} {duration(result)}")


def ratings(n_items: int, n_annotators=5, n_categories=3, seed=0) -> np.ndarray:
    """Category codes (float, NaN missing): each annotator gives the item's true category with
    probability 0.7, else a random one; 5% of the ratings missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_categories, n_items)
    values = np.where(rng.random((n_items, n_annotators)) < 0.7, truth[:, None],
                      rng.integers(0, n_categories, (n_items, n_annotators))).astype(np.float64)
    values[rng.random(values.shape) < 0.05] = np.nan
    return values


def count_table(values: np.ndarray, n_categories=3) -> np.ndarray:
    """items x categories: how many ratings of each item are in each category (NaN, for float
    input, left out)."""
    rated = ~np.isnan(values)
    items = np.nonzero(rated)[0]
    codes = values[rated].astype(np.int64)
    return np.bincount(items * n_categories + codes,
                       minlength=len(values) * n_categories).reshape(len(values), n_categories)


def annotator_table(values: np.ndarray, n_categories=3) -> np.ndarray:
    """annotators x categories for complete integer ratings."""
    annotators = np.broadcast_to(np.arange(values.shape[1]), values.shape)
    return np.bincount((annotators * n_categories + values).ravel(),
                       minlength=values.shape[1] * n_categories).reshape(-1, n_categories)


def agree(ours, theirs, what: str):
    assert abs(float(ours) - float(theirs)) < TOLERANCE, (what, float(ours), float(theirs))


def single_label(n_items: int, repeats: int, full_size: bool, peers: dict):
    """Cases 1 (50 items) and 2 (10^5 items): the family against statsmodels and the others."""
    statsmodels, sklearn, agreement = peers["statsmodels"], peers["sklearn"], peers["agreement"]
    values = ratings(n_items)
    complete = values[~np.isnan(values).any(axis=1)].astype(np.int64)
    pair = values[:, :2][~np.isnan(values[:, :2]).any(axis=1)].astype(np.int64)
    da = with_string_ids(values, ("item", "annotator"))
    functions = {name: (lambda f=getattr(xr_agreement, name): f(da)) for name in KAPPA_FAMILY}
    if statsmodels is not None:
        functions["statsmodels"] = lambda: statsmodels.fleiss_kappa(
            statsmodels.aggregate_raters(complete)[0])
    if sklearn is not None:
        functions["scikit-learn"] = lambda: sklearn.cohen_kappa_score(pair[:, 0], pair[:, 1])
    large = n_items > 50
    agreement_rows = {"fleiss": "agreement.scotts_pi", "gwet": "agreement.gwets_gamma",
                      "conger": "agreement.cohens_kappa"}
    if large and agreement is not None:
        functions["agreement.scotts_pi"] = lambda: agreement.scotts_pi(count_table(complete))
        functions["agreement.gwets_gamma"] = lambda: agreement.gwets_gamma(
            count_table(complete))
        functions["agreement.cohens_kappa"] = lambda: agreement.cohens_kappa(
            count_table(complete), annotator_table(complete))
    times, results = timed(functions, repeats)

    # the values: the peers given the complete items against ours on the same items
    complete_da = with_string_ids(complete.astype(np.float64), ("item", "annotator"))
    ours = {name: getattr(xr_agreement, name)(complete_da).coefficient
            for name in ("fleiss", "gwet", "conger")}
    if statsmodels is not None:
        agree(ours["fleiss"], results["statsmodels"], "statsmodels Fleiss")
    if agreement is not None:
        table, users = count_table(complete), annotator_table(complete)
        for name, theirs in (("fleiss", agreement.scotts_pi(table)),
                             ("gwet", agreement.gwets_gamma(table)),
                             ("conger", agreement.cohens_kappa(table, users))):
            agree(ours[name], theirs, f"agreement against {name}")
    if sklearn is not None:  # ours takes each pair's common items, as scikit-learn got them
        agree(results["cohen"].pair_coefficient[0, 1], results["scikit-learn"],
              "scikit-learn Cohen")

    print(f"\n{n_items:,} items x 5 annotators x 3 categories, 5% missing "
          f"({len(complete):,} complete items for statsmodels)")
    times_table(times)
    if statsmodels is not None:
        for name in KAPPA_FAMILY:
            if large:
                row(name, "statsmodels", times, 10, faster=True, judged=full_size)
            else:
                row(name, "statsmodels", times, 3, faster=False, judged=True)
    if sklearn is not None:
        row("cohen", "scikit-learn", times, 2 if large else None, faster=True,
            judged=full_size)
    if large and agreement is not None:
        for name, peer in agreement_rows.items():
            row(name, peer, times, None, faster=True, judged=full_size)


def multi_label(n_items: int, repeats: int, full_size: bool):
    """Case 3: multi-label fleiss() and cohen() against one mla() call."""
    rng = np.random.default_rng(1)
    shape = (n_items, 5, 50)
    truth = rng.random((n_items, 1, 50), dtype=np.float32) < 0.1
    flipped = rng.random(shape, dtype=np.float32) < 0.1
    da = with_string_ids((truth ^ flipped).astype(np.uint8), ("item", "annotator", "label"))
    times, results = timed({"mla": lambda: xr_agreement.mla(da),
                            "fleiss": lambda: xr_agreement.fleiss(da),
                            "cohen": lambda: xr_agreement.cohen(da)}, repeats)
    agree(results["fleiss"].coefficient, results["mla"].agreement, "multi-label Fleiss / MLA")
    print(f"\nmulti-label ({n_items:,} items, 5 annotators, 50 labels) uint8 0/1, each "
          "decision a shared truth (p = 0.1) flipped with p = 0.1")
    times_table(times)
    for name in ("fleiss", "cohen"):
        row(name, "mla", times, 3, faster=False, judged=full_size)


def alpha_case(repeats: int, peers: dict):
    """Case 4: single-label nominal alpha at 50 items against interrater and agreement."""
    interrater, agreement = peers["interrater"], peers["agreement"]
    values = ratings(50, seed=2)
    da = with_string_ids(values, ("item", "annotator"))
    functions = {"alpha": lambda: xr_agreement.alpha(da)}
    if interrater is not None:
        krippendorff_alpha, NijMatrix = interrater
        functions["interrater"] = lambda: krippendorff_alpha(NijMatrix(count_table(values)))
    if agreement is not None:
        functions["agreement"] = lambda: agreement.krippendorffs_alpha(count_table(values))
    times, results = timed(functions, repeats)
    for peer in ("interrater", "agreement"):
        if peer in results:
            agree(results["alpha"].alpha, results[peer], f"{peer} alpha")
    print("\nalpha (nominal, with its analytic se), 50 items x 5 annotators, 5% missing "
          "(peers get every item)")
    times_table(times)
    for peer in ("interrater", "agreement"):
        if peer in times:
            row("alpha", peer, times, 1, faster=False, judged=True)


def load_peers() -> dict:
    peers = {"statsmodels": optional("statsmodels.stats.inter_rater"),
             "sklearn": optional("sklearn.metrics"),
             "agreement": optional("agreement.metrics")}
    functions = optional("interrater.analyzers.agreement_functions.krippendorff")
    peers["interrater"] = None if functions is None else (functions.krippendorff_alpha,
                                                          functions.NijMatrix)
    return peers


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true",
                        help="the 50-item cases, the large ones at 2,000 items (not judged)")
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"bench_kappa: medians of {args.repeats} calls after a warm-up unless said "
          f"(calls over {SLOW_CALL:g} s: as many as fit in {SLOW_BUDGET:g} s)")
    peers = load_peers()
    single_label(50, args.repeats, True, peers)
    single_label(2_000 if args.quick else 100_000, args.repeats, not args.quick, peers)
    multi_label(2_000 if args.quick else 50_000, args.repeats, not args.quick)
    alpha_case(args.repeats, peers)
    print(f"\n{time.perf_counter() - started:.0f} s in all")
