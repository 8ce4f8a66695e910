"""Command line: ``xr-agreement report [FILE]`` and ``xr-agreement disagreements [FILE]``.

Every failure (a bad file, a bad option value, an input the statistics reject) is one line on
stderr starting with ``xr-agreement: error:`` and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys

from ._core.progress import stages


EXAMPLE = """examples:
  xr-agreement report
      the paper's worked example (4 sentences, 3 annotators, 31 bias types)
  xr-agreement report votes.csv --labels taxonomy.txt --labels-fixed yes
      votes.csv has a row per item x annotator: item,annotator,labels  (labels "a;b", empty
      cell = no label selected, absent row = not annotated); taxonomy.txt one label per line
  xr-agreement report decisions.parquet --layout long --format html --output report.html
      one row per item x annotator x label with a 0/1 column "value"
  xr-agreement report votes.tsv --baseline AC1 --sensitivity F,PB --ci 0.95 --seed 1
  xr-agreement report export.json --labels config.xml
      a Label Studio export (the tool is told from the content; --from TOOL forces one:
      label-studio, prodigy, doccano, argilla, mturk, crowd, wide, table); config.xml the
      project's labeling config (its <Choice> values are the label universe)
  xr-agreement report export.json --format json | jq .summary.agreement.F
  xr-agreement report ratings.csv --layout single --ci 0.9
      one category per row (item,annotator,rating): the single-label report (Fleiss',
      Conger's, Cohen's kappa, AC1, Brennan-Prediger, percent agreement, nominal alpha, the
      category confusion table); --ci-method percentile --seed 1 for bootstrap intervals
  xr-agreement report ner.json --labels config.xml
      a span export (Label Studio Labels, Prodigy spans, doccano sequence labeling, brat,
      CoNLL): the span report (positions, span F1, unitizing alpha, disputed regions);
      --spans reads FILE as spans whatever it holds
"""


def _summary(da) -> str:
    from .mla import mla

    result = mla(da, baseline="all")
    lines = [
        f"N (items)            {result.attrs['n_items']}",
        f"n (annotators)       {result.attrs['n_annotators']}",
        f"k (labels)           {result.attrs['n_labels']}",
        f"A_o (observed)       {float(result.observed):.4f}",
        f"p_r (raw prevalence) {float(result.raw_prevalence):.4f}",
        f"A_o,min (floor)      {float(result.observed_minimum):.4f}",
        "",
        f"{'baseline':<9}{'A_e':>8}{'A_ml':>9}{'floor':>9}",
    ]
    for name in result.baseline.values:
        row = result.sel(baseline=name)
        lines.append(
            f"{name:<9}{float(row.expected):>8.4f}{float(row.agreement):>9.4f}"
            f"{float(row.minimum):>9.4f}"
        )
    lines.append(f"\nalpha_H (Hamming)    {float(result.alpha_hamming):.4f}")
    return "\n".join(lines)


def _yes_no(text: str) -> bool:
    word = text.strip().lower()
    if word in ("yes", "y", "true", "1"):
        return True
    if word in ("no", "n", "false", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected yes or no, got {text!r}")


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a level such as 0.95, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"the level must be between 0 and 1, got {value}")
    return value


def _tools() -> list[str]:
    from .io.tools import TOOLS

    return list(TOOLS) + [t for t in _span_tools() if t not in TOOLS]


def _span_tools() -> list[str]:
    """read_spans's tools, spelled as --from spells them (label-studio: read_spans reads
    both spellings)."""
    try:
        from .io.spans.reading import TOOLS
    except ImportError:  # an installation without the span readers
        return []
    return [tool.replace("_", "-") for tool in TOOLS]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xr-agreement",
        description="Inter-annotator agreement for multi-label annotations.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser(
        "report",
        help="reliability report of an annotation file (the MLA paper's section-5 checklist)",
        description="Reliability report of an annotation file: label universe, meaning of "
        "joint omissions, baseline with sensitivity values and feasible floors, label-wise "
        "and item-level diagnostics, missing data, intervals. Single-label ratings (one "
        "category per item and annotator, e.g. --layout single) get the single-label report "
        "instead (the kappa family, nominal alpha, the category confusion table), span "
        "exports the span report.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_reading_options(report)
    report.add_argument("--format", choices=["text", "markdown", "json", "html"],
                        default="text", help="output format (default: text)")
    report.add_argument("--output", "-o", metavar="PATH", help="write here instead of stdout")
    report.add_argument("--baseline", default="F",
                        help="pre-specified primary baseline: F, AC1 or PB (default: F)")
    report.add_argument("--sensitivity",
                        help="comma-separated sensitivity baselines, or 'none' "
                        "(default: the two baselines other than the primary)")
    report.add_argument("--labels-fixed", type=_yes_no, metavar="yes|no",
                        help="was the label inventory fixed before annotation?")
    report.add_argument("--all-labels-considered", type=_yes_no, metavar="yes|no",
                        help="was every annotator expected to consider every label?")
    report.add_argument("--joint-omissions", metavar="TEXT",
                        help="what a joint omission means in this task (stated in the report)")
    report.add_argument("--ci", type=_level, metavar="LEVEL",
                        help="confidence level of bootstrap intervals, e.g. 0.95 (single-"
                        "label ratings: of the analytic intervals, 0.95 without it)")
    report.add_argument("--ci-method", choices=["analytic", "percentile", "bca"],
                        help="how the intervals are computed (default: percentile bootstrap; "
                        "analytic for single-label ratings, the only ones that have it)")
    report.add_argument("--seed", type=int, help="random seed of the bootstrap")
    report.add_argument("--landis-koch", action="store_true",
                        help="add Landis-Koch verbal bands (off by default: the paper "
                        "argues against universal cut-offs)")
    report.add_argument("--digits", type=int, default=3, help="decimals shown (default: 3)")
    _add_disagreements(commands)
    return parser


DISAGREEMENTS_EXAMPLE = """examples:
  xr-agreement disagreements votes.csv --output review.csv
      one row per disputed (item, label): who said 1, who said 0, the item's observed
      agreement; most disputed items first
  xr-agreement disagreements decisions.parquet --layout long --output review.json
"""


def _add_reading_options(parser) -> None:
    """FILE and how to read it: the same for every subcommand."""
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="an annotation tool's export (a directory or .zip for doccano), "
                        "or a CSV, TSV, parquet or JSON-lines table (default: the bundled "
                        "worked example)")
    parser.add_argument("--from", dest="tool", choices=_tools(), metavar="TOOL",
                        help="the annotation tool that wrote FILE: " + ", ".join(_tools())
                        + " (default: told from the content)")
    parser.add_argument("--spans", action="store_true",
                        help="read FILE as a span export (named entities, segments: "
                        "read_spans) whatever it holds; without it a span export is "
                        "recognised by its content, or by a --from TOOL that only writes "
                        "spans")
    parser.add_argument("--spans-as-label-sets", action="store_true",
                        help="read a Label Studio or doccano span export as label sets (the "
                        "set of span labels each annotator used per task), not as spans")
    parser.add_argument("--control", metavar="NAME",
                        help="the Label Studio control (from_name), Argilla question or MTurk "
                        "crowd element to read when the file holds several")
    parser.add_argument("--layout", choices=["auto", "sets", "long", "single"], default="auto",
                        help="sets: row per item x annotator with a label list; long: row per "
                        "item x annotator x label with a 0/1 column; single: one rating "
                        "(category) per row, the single-label report (default: auto)")
    parser.add_argument("--labels", metavar="FILE",
                        help="declared label universe: one label per line (optionally "
                        "label<TAB>name), or a Label Studio labeling config (XML)")
    parser.add_argument("--sep", help="separator inside a label-list cell "
                        "(default: ;, and # for doccano CSV)")
    parser.add_argument("--empty-list", choices=["missing", "no-label"],
                        help="doccano: what an empty label list means, an example never "
                        "annotated or one given no label (required for a full export)")
    for role in ("item", "annotator", "labels", "label", "value", "rating"):
        parser.add_argument(f"--{role}-column", metavar="NAME",
                            help=f"name of the {role} column (default: recognised)")
    parser.add_argument("--progress", type=_yes_no, metavar="yes|no",
                        help="progress bars on stderr: reading, computing, the bootstrap "
                        "(default: when stderr is a terminal)")


def _add_disagreements(commands) -> None:
    """The ``disagreements`` subcommand: reads FILE as ``report`` does."""
    parser = commands.add_parser(
        "disagreements",
        help="the (item, label) cells annotators disagree on, for adjudication",
        description="One row per (item, label) where at least one annotator said 1 and one "
        "said 0, with the tool's own ids: item, label, n_positive, n_negative, n_undecided, "
        "positive_annotators, negative_annotators, item_observed; most disputed items "
        "first. CSV (annotators joined with ';', a ';' or '\\' inside an id escaped by "
        "'\\'; a text cell that a spreadsheet would run as a formula, = + - @ tab CR, or "
        "that begins with ', gets a ' in front) or JSON records (lists, full precision), "
        "by the extension of --output; CSV on stdout without it (control characters shown "
        "as escapes there). An --output that is an input is refused. On a span export "
        "(see report --help): one row per disputed region, document, start, end, text, "
        "n_annotators, labels, disagreement and one column per annotator with the spans it "
        "marked there ('LABEL [start,end)' joined by '; ', empty: marked nothing, 'not "
        "annotated' in CSV and null in JSON: did not annotate the document). On single-label "
        "ratings (--layout single): one row per disputed (item, category), the category in "
        "the label column: positive_annotators chose it, negative_annotators chose another "
        "category.",
        epilog=DISAGREEMENTS_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_reading_options(parser)
    parser.add_argument("--output", "-o", metavar="PATH",
                        help="a .csv or .json file (default: CSV on stdout)")
    parser.set_defaults(labels_fixed=None)


# a span disagreement CSV's cell of an annotator who did not annotate the document (a cell
# of marks always ends with an offset, "LABEL [start,end)", so this cannot be one)
NOT_ANNOTATED = "not annotated"


def _run_disagreements(args) -> str:
    from ._core.safe_text import join_ids, json_text, spreadsheet_cell, visible
    from .diagnostics import disagreements
    from .report.render import _json_safe

    output = args.output or ""
    extension = os.path.splitext(output)[1].lower()
    if output and extension not in (".csv", ".json"):
        raise ValueError(f"--output must end in .csv or .json, got {output!r}")
    args.step("reading")
    spans, decisions = _read(args)
    args.step("computing")
    if spans is not None:
        from .spans import span_disagreements

        table = span_disagreements(spans)
        # the disputed labels: a tuple per region, joined like the id sets
        sets = [c for c in table.columns
                if table[c].map(lambda v: isinstance(v, (list, tuple, set))).any()]
        if extension != ".json":
            # the last columns, one per annotator: NaN (did not annotate the document) said
            # in words, as an empty cell is "marked nothing there" (JSON keeps null)
            marks = list(table.columns[len(table.columns) - spans.sizes["annotator"]:])
            table = table.assign(**{c: table[c].astype(object).where(table[c].notna(),
                                                                     NOT_ANNOTATED)
                                    for c in marks})
    else:
        table = disagreements(_decisions_of(decisions[0]))
        sets = ["positive_annotators", "negative_annotators"]
    if extension == ".json":
        # written from Python values, not DataFrame.to_json (which rounds floats to 10
        # digits): json writes a float's repr, which reads back as the same float; tuples
        # of ids as lists, NaN as null (the JSON report's rule)
        records = _json_safe(table.to_dict(orient="records"))
        text = json.dumps(records, ensure_ascii=False, indent=1) + "\n"
        return json_text(text)  # C1 controls and bidi overrides as \uXXXX too
    # ids inside the joined cells: "\\" and ";" escaped by "\\", so that the cells split
    # back exactly; then the spreadsheet rule on every text cell (docs/next_steps.md)
    table = table.assign(**{c: table[c].map(join_ids) for c in sets})
    text_columns = [c for c in table.columns if table[c].dtype.kind not in "biufcmM"]
    if not output:
        # a CSV on stdout goes to a terminal: control characters shown as escapes; a file
        # written with --output keeps the exact strings
        table = table.assign(**{c: table[c].map(lambda v: visible(v) if isinstance(v, str)
                                                 else v) for c in text_columns})
    table = table.assign(**{c: table[c].map(spreadsheet_cell) for c in text_columns})
    # span disagreements name a column by each annotator id: the header is input text too
    header = [visible(str(c)) if not output else str(c) for c in table.columns]
    table.columns = [spreadsheet_cell(c) for c in header]
    return table.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC)


def _decisions(args):
    """The decisions to report on, the title, whether labels were fixed, and notes."""
    from .datasets import bias_example
    from .io import read_annotations

    if args.file is None:
        if args.labels is not None:
            raise ValueError("--labels needs a FILE of annotations")
        fixed = True if args.labels_fixed is None else args.labels_fixed
        # the paper: "a pre-specified taxonomy of 31 types"
        title = "Multi-label agreement report: the MLA paper's worked example"
        return bias_example(), title, fixed, []
    columns = {f"{role}_column": getattr(args, f"{role}_column")
               for role in ("item", "annotator", "labels", "label", "value", "rating")}
    da = read_annotations(args.file, args.layout, tool=args.tool, control=args.control,
                          labels=args.labels, sep=args.sep, empty_list=args.empty_list,
                          spans_as_label_sets=args.spans_as_label_sets, **columns)
    if _is_ratings(da):
        if args.layout == "single":  # the reader's sentence speaks of layout='single'
            da = da.copy()
            # (a tool's export has no rows of item and annotator: the option, nothing more)
            da.attrs["single_label"] = "--layout single was given on the command line"
        title = f"Single-label agreement report: {os.path.basename(args.file)}"
        return da, title, None, []
    title = f"Multi-label agreement report: {os.path.basename(args.file)}"
    return da, title, args.labels_fixed, []


def _is_ratings(da) -> bool:
    """Whether a read gave single-label ratings (item, annotator): the single-label report,
    not the multi-label one."""
    return set(da.dims) == {"item", "annotator"}


def _decisions_of(da):
    """Multi-label decisions as they are; single-label ratings one-hot, a label per category
    (so that each disagreement is an (item, category) row)."""
    if not _is_ratings(da):
        return da
    from ._core.attrs import from_json_attr
    from .kappa import one_hot

    return one_hot(da, from_json_attr(da.attrs.get("categories")))


def _run_report(args) -> str:
    from .mla import BASELINES, parse_baselines
    from .report import report

    args.step("reading")
    spans, decisions = _read(args)
    args.step("computing")
    if spans is not None:
        return _run_span_report(args, spans)
    if _is_ratings(decisions[0]):
        return _run_single_report(args, *decisions[:2])
    if args.ci_method == "analytic":
        raise ValueError("--ci-method analytic: only single-label ratings have analytic "
                         "intervals; multi-label decisions take percentile or bca")
    primary = parse_baselines(args.baseline)[0][0]
    if args.sensitivity is None:
        sensitivity = [b for b in BASELINES if b != primary]
    else:
        names = [name.strip() for name in args.sensitivity.split(",") if name.strip()]
        none = [n.lower() for n in names] in ([], ["none"])
        sensitivity = [] if none else [b for b in parse_baselines(names)[0] if b != primary]
    da, title, fixed, notes = decisions
    rep = report(da, primary, sensitivity, ci=args.ci, seed=args.seed, labels_fixed=fixed,
                 all_labels_considered=args.all_labels_considered,
                 joint_omissions=args.joint_omissions, landis_koch=args.landis_koch,
                 digits=args.digits, title=title, notes=notes,
                 **({} if args.ci is None else {"progress": args.progress}),
                 **({} if args.ci_method is None else {"ci_method": args.ci_method}))
    args.step("writing")
    if args.format == "markdown":
        return rep.to_markdown()
    if args.format == "json":
        return rep.to_json() + "\n"
    if args.format == "html":
        return rep.to_html()
    text = str(rep)
    if args.file is None:
        # the summary this command has always printed for the bundled example
        text = _summary(da) + "\n\n" + text
    return text


# reading options of classification files, and the report options of the MLA checklist,
# that a span export has no use for: refused rather than ignored
_NOT_FOR_SPANS = {"layout": "auto", "sep": None, "sensitivity": None,
                  "spans_as_label_sets": False,
                  "labels_fixed": None, "all_labels_considered": None,
                  "joint_omissions": None, "landis_koch": False,
                  **{f"{role}_column": None for role in ("item", "annotator", "labels",
                                                         "label", "value", "rating")}}


def _points_to_spans(error) -> bool:
    """Whether a reader refused FILE because it holds spans (its message sends the user to
    read_spans, or the error says so with ``spans = True``)."""
    return bool(getattr(error, "spans", False)) or "read_spans" in str(error)


def _read(args):
    """``(span table, None)`` when FILE is a span export, else ``(None, _decisions(args))``.
    A span export: ``--spans``, a ``--from`` tool that only writes spans, or a file that
    the classification readers refuse, either because it holds spans (the message sends
    to read_spans) or with a content read_spans recognises (a span export's error then
    gives both reasons). A classification file is read once."""
    from .io.files import AnnotationFileError

    if args.file is None:
        if args.spans:
            raise ValueError("--spans needs a FILE (a span export)")
        return None, _decisions(args)
    span_only = args.tool is not None and args.tool not in _classification_tools()
    if not (args.spans or span_only):
        try:
            return None, _decisions(args)
        except AnnotationFileError as error:
            if not _points_to_spans(error):
                if not _is_span_export(args.file):
                    raise
                # refused as label sets, and its content is a span export's (Prodigy
                # spans, brat, CoNLL): read as spans; if that fails too, both reasons
                try:
                    return _read_spans(args), None
                except (AnnotationFileError, ValueError) as span_error:
                    raise AnnotationFileError(
                        f"{' '.join(str(error).split())}; read as spans: "
                        f"{' '.join(str(span_error).split())}") from None
    return _read_spans(args), None


# span exports told by content alone once the label-set readers refused the file. Not Label
# Studio or doccano: one project can hold label-set and span controls, and their label-set
# readers refuse a span control themselves (pointing to read_spans), so a refusal for another
# reason (several controls, say) must stay that refusal, not become a span report
SPAN_ONLY_CONTENT = ("prodigy", "brat", "conll")


def _is_span_export(path) -> bool:
    from .io.files import AnnotationFileError

    from .io.spans.reading import detect_span_tool

    try:
        return detect_span_tool(path) in SPAN_ONLY_CONTENT
    except (AnnotationFileError, OSError, ValueError):
        return False


def _read_spans(args):
    from .io import read_spans

    _refuse_options(args, _NOT_FOR_SPANS, "is read as spans:",
                    "only apply to label-set annotations")
    return read_spans(args.file, tool=args.tool, control=args.control, labels=args.labels,
                      empty_list=args.empty_list)


def _refuse_options(args, defaults: dict, what: str, why: str) -> None:
    """Options given (not at their ``defaults``) that this kind of file has no use for:
    refused, named, rather than ignored."""
    given = [f"--{name.replace('_', '-')}" for name, default in defaults.items()
             if getattr(args, name, default) != default]
    if given:
        raise ValueError(f"{os.path.basename(args.file)} {what} {', '.join(given)} {why}")


def _classification_tools() -> list[str]:
    from .io.tools import TOOLS

    return list(TOOLS)


def _run_span_report(args, table) -> str:
    from .report import span_report

    if args.ci_method == "analytic":
        raise ValueError("--ci-method analytic: only single-label ratings have analytic "
                         "intervals; a span report takes percentile or bca")
    primary = args.baseline
    rep = span_report(table, primary, ci=args.ci, seed=args.seed, digits=args.digits,
                      title=f"Span agreement report: {os.path.basename(args.file)}",
                      **({} if args.ci_method is None else {"ci_method": args.ci_method}))
    return _rendered(args, rep)


# the multi-label report's options, which single-label ratings have no use for: refused
# rather than ignored (the baseline: a non-default one)
_NOT_FOR_RATINGS = {"baseline": "F", "sensitivity": None, "labels_fixed": None,
                    "all_labels_considered": None, "joint_omissions": None}


def _run_single_report(args, ratings, title) -> str:
    from .report import single_label_report

    _refuse_options(args, _NOT_FOR_RATINGS, "holds single-label ratings (one category per "
                    "item and annotator):", "only apply to the multi-label report")
    method = args.ci_method or "analytic"
    if args.seed is not None and method == "analytic":
        raise ValueError("--seed applies to a bootstrap: single-label intervals are analytic "
                         "unless --ci-method percentile (or bca) is given")
    rep = single_label_report(ratings, ci=args.ci, ci_method=method, seed=args.seed,
                              progress=args.progress, digits=args.digits,
                              landis_koch=args.landis_koch, title=title)
    return _rendered(args, rep)


def _rendered(args, rep) -> str:
    """A span or single-label report in the --format asked for."""
    args.step("writing")
    if args.format == "markdown":
        return rep.to_markdown()
    if args.format == "json":
        return rep.to_json() + "\n"
    if args.format == "html":
        return rep.to_html()
    return str(rep)


def _refuse_output_over_an_input(args) -> None:
    """Refuse an --output that is one of the inputs (FILE, --labels) or lies inside an input
    folder (a doccano export), before anything is read or written: writing there would
    destroy or change the annotations."""
    output = getattr(args, "output", None)
    if not output:
        return
    target = os.path.realpath(output)
    for option, given in (("FILE", getattr(args, "file", None)),
                          ("--labels", getattr(args, "labels", None))):
        if not given:
            continue
        source = os.path.realpath(given)
        if os.path.isdir(source):
            same = os.path.commonpath([source, target]) == source
        elif os.path.exists(source) and os.path.exists(target):
            same = os.path.samefile(source, target)  # also a hard link to the input
        else:
            same = source == target
        if same:
            where = "inside the folder" if os.path.isdir(source) else "the file"
            raise ValueError(f"--output {output!r} is {where} {given!r} given as {option}: "
                             "it would overwrite the input; write the output elsewhere")


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    commands = {"report": _run_report, "disagreements": _run_disagreements}
    if args.command not in commands:  # pragma: no cover - argparse requires a command
        return 2
    try:
        _refuse_output_over_an_input(args)
        # a bar over the command's stages on stderr (``_core.progress``: when stderr is a
        # terminal, or as --progress says); each command calls args.step(name)
        with stages(["reading", "computing", "writing"], args.progress,
                    f"xr-agreement {args.command}") as step:
            args.step = step
            output = commands[args.command](args)
            step("writing")
            if args.output:
                with open(args.output, "w", encoding="utf-8") as handle:
                    handle.write(output)
        if not args.output:
            sys.stdout.write(output)
    except Exception as error:  # one line, never a traceback (debug: XR_AGREEMENT_DEBUG=1)
        if os.environ.get("XR_AGREEMENT_DEBUG"):
            raise
        from ._core.safe_text import visible

        # one line; a control character quoted from the file shown as an escape
        message = visible(" ".join(str(error).split())) or type(error).__name__
        if not isinstance(error, (ValueError, TypeError, OSError, NotImplementedError)):
            message = f"{type(error).__name__}: {message}"
        print(f"xr-agreement: error: {message}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
