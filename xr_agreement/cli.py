"""Command line: ``xr-agreement report [FILE]``."""

from __future__ import annotations

import argparse
import sys

EXAMPLE = """example:
  xr-agreement report            the paper's worked example (4 sentences, 3 annotators, 31 labels)
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="xr-agreement",
        description="Inter-annotator agreement for multi-label annotations.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="agreement report of an annotation file",
                                 epilog=EXAMPLE,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    report.add_argument("file", nargs="?", help="annotation file (default: bundled example)")
    args = parser.parse_args(argv)
    if args.command == "report":
        if args.file is not None:
            print("xr-agreement: file input is not available yet", file=sys.stderr)
            return 2
        from .datasets import bias_example

        print(_summary(bias_example()))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
