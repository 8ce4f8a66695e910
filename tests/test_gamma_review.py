"""Review of gamma (issue 32): behaviours found by the review that should hold and do not."""

import numpy as np
import pytest

import xr_agreement
from xr_agreement.spans.alignment import api as gamma_api


def _units(seed=11):
    rng = np.random.default_rng(seed)
    records, position = [], 0
    for _ in range(20):
        position += int(rng.integers(1, 6))
        length = int(rng.integers(1, 8))
        label = "PLOM"[rng.integers(4)]
        for annotator in ("A0", "A1", "A2"):
            if rng.random() < 0.1:
                continue
            start = position + int(rng.integers(-1, 2))
            end = max(start + 1, position + length + int(rng.integers(-1, 2)))
            records.append((annotator, start, end, label))
        position += length
    return records


def test_gamma_does_not_depend_on_the_order_of_documents():
    # the same two documents, listed in the other order: the sampler lays documents end to
    # end, so every document's empty tail but the last one's enters the gap law
    units = _units()
    first = [("d1", a, s, e, c) for a, s, e, c in units if s < 60]
    second = [("d2", a, s - 60, e - 60, c) for a, s, e, c in units if s >= 60]
    lengths = {"d1": 500, "d2": 100}
    values = [xr_agreement.gamma(xr_agreement.from_spans(records, lengths=lengths),
                                 n_samples=400, seed=0)
              for records in (first + second, second + first)]
    assert float(values[0].observed_disorder) == pytest.approx(float(values[1].observed_disorder), abs=1e-12)
    se = float(np.hypot(values[0].expected_disorder_se, values[1].expected_disorder_se))
    assert abs(float(values[0].expected_disorder - values[1].expected_disorder)) < 4 * se


def test_span_report_survives_gamma_refusing_a_crowded_table(monkeypatch):
    # unitizing alpha's refusal is caught and said in its section; gamma's is not
    monkeypatch.setattr(gamma_api, "MAX_TRIED", 0)
    table = xr_agreement.from_spans(
        [("d", "a", 0, 4, "X"), ("d", "b", 0, 4, "X"), ("d", "b", 1, 3, "X")])
    report = xr_agreement.span_report(table)
    assert "gamma" in str(report)
