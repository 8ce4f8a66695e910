"""doccano sequence-labelling exports read as span tables (xr_agreement.io.spans.doccano).

Fixtures: tests/data/spans/doccano (README.md says what each member marked, in the shape
doccano 1.8 exports). Expected spans are written here from that table (offsets found with
str.index in the example's text), and random exports are generated with their spans known,
written in the documented shape and read back: never the reader's own output.
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest

from xr_agreement.io import AnnotationFileError
from xr_agreement.io.spans import doccano

HERE = Path(__file__).parent / "data" / "spans" / "doccano"

TEXTS = {1: "Ada Lovelace met Charles Babbage in London.",
         2: "The United Nations opened an office in Nairobi.",
         3: "Nothing to see here.",
         4: "Marie Curie and Pierre Curie won the Nobel Prize in 1903."}

# (example, member) -> [(substring, label)], as README.md's table; absent: not confirmed
MARKED = {
    (1, "alice"): [("Ada Lovelace", "PER"), ("Charles Babbage", "PER"), ("London", "LOC")],
    (2, "alice"): [("United Nations", "ORG"), ("Nairobi", "LOC")],
    (3, "alice"): [],
    (4, "alice"): [("Marie Curie", "PER"), ("Pierre Curie", "PER"), ("Nobel Prize", "MISC")],
    (1, "bob"): [("Ada Lovelace", "PER"), ("Ada", "PER"), ("London", "LOC")],
    (2, "bob"): [("The United Nations", "LOC"), ("Nairobi", "LOC")],
    (3, "bob"): [],
    (4, "bob"): [("Marie Curie and Pierre Curie", "PER"), ("Nobel Prize", "MISC"),
                 (" in 1903", "MISC")],
    (1, "carol"): [("Ada Lovelace", "PER"), ("Lovelace", "MISC"),
                   ("Charles Babbage in London", "MISC")],
    (4, "carol"): [("Marie Curie", "PER")],
}


def expected_spans(marked=MARKED) -> set:
    out = set()
    for (doc, who), spans in marked.items():
        for sub, label in spans:
            start = TEXTS[doc].index(sub)
            out.add((doc, who, start, start + len(sub), label))
    return out


def spans_of(table) -> set:
    return set(zip(table.document.values.tolist(), table.annotator.values.tolist(),
                   table.start.values.tolist(), table.end.values.tolist(),
                   table.label.values.tolist()))


def annotated_of(table) -> set:
    docs, anns = table.document_id.values.tolist(), table.annotator_id.values.tolist()
    mask = table.annotated.values
    return {(docs[d], anns[a]) for d in range(len(docs)) for a in range(len(anns))
            if mask[d, a]}


def test_approved_only_export_reads_what_each_member_marked():
    table = doccano.read(HERE / "approved_jsonl.zip")
    assert table.attrs["reader"] == "doccano"
    assert spans_of(table) == expected_spans()
    assert annotated_of(table) == set(MARKED)  # confirmed examples, with or without spans
    assert sorted(table.annotator_id.values.tolist()) == ["alice", "bob", "carol"]
    assert {d: int(table.length.sel(document_id=d)) for d in TEXTS} == \
        {d: len(t) for d, t in TEXTS.items()}
    assert table.text.sel(document_id=4).item() == TEXTS[4]
    assert table.label_id.values.tolist() == ["LOC", "MISC", "ORG", "PER"]
    assert json.loads(table.attrs["notes"])[0].startswith("doccano: 1 member file(s) empty")
    assert json.loads(table.attrs["empty_label_lists"]) == {"alice": 1, "bob": 1}


def test_declared_labels_are_the_universe_and_refuse_others(tmp_path):
    table = doccano.read(HERE / "approved_jsonl.zip", labels=["PER", "ORG", "LOC", "MISC",
                                                                  "DATE"])
    assert table.label_id.values.tolist() == ["PER", "ORG", "LOC", "MISC", "DATE"]
    universe = tmp_path / "labels.txt"
    universe.write_text("PER\nORG\nLOC\n")
    with pytest.raises(AnnotationFileError, match=r"label 'MISC' is not in the declared"):
        doccano.read(HERE / "approved_jsonl.zip", labels=universe)


def test_full_export_refused_unless_told_what_an_empty_list_means():
    with pytest.raises(AnnotationFileError, match=r"a full export.*empty_list="):
        doccano.read(HERE / "full_jsonl.zip")
    # "missing": every empty list is "never annotated" (alice's and bob's 3 too)
    table = doccano.read(HERE / "full_jsonl.zip", empty_list="missing")
    assert spans_of(table) == expected_spans()
    assert annotated_of(table) == {k for k, v in MARKED.items() if v}
    assert "admin" not in table.annotator_id.values.tolist()  # every list empty
    # "no-label": carol looked at 2 and 3 and marked nothing
    table = doccano.read(HERE / "full_jsonl.zip", empty_list="no-label")
    assert spans_of(table) == expected_spans()
    assert annotated_of(table) == {(d, w) for d in TEXTS for w in ("alice", "bob", "carol")}
    dropped = json.loads(table.attrs["dropped"])
    assert dropped["every label list empty, not an annotator"] == {"admin": 4}


def test_entities_and_relations_shape():
    # alice and bob both list every example and both left 3 empty: the file cannot tell
    # a full export from an approved-only one where both confirmed everything
    with pytest.raises(AnnotationFileError, match=r"a full export"):
        doccano.read(HERE / "relations_jsonl.zip")
    table = doccano.read(HERE / "relations_jsonl.zip", empty_list="no-label")
    assert (3, "alice") in annotated_of(table)
    marked = {k: v for k, v in MARKED.items() if k[1] in ("alice", "bob")}
    assert spans_of(table) == expected_spans(marked)
    assert json.loads(table.attrs["dropped"])["relation (not measured)"] == {"alice": 1, "bob": 1}
    assert any("2 relation(s)" in note for note in json.loads(table.attrs["notes"]))


def test_one_members_file_alone(tmp_path):
    with zipfile.ZipFile(HERE / "approved_jsonl.zip") as archive:
        text = archive.read("carol.jsonl").decode()
    path = tmp_path / "carol.jsonl"
    path.write_text(text)
    table = doccano.read(path)
    assert spans_of(table) == expected_spans({k: v for k, v in MARKED.items()
                                              if k[1] == "carol"})


# ------------------------------------------------------------------------------------------
# random exports: nested, overlapping, touching spans, empty examples, members who did not
# confirm an example; written in the documented shape, read back
# ------------------------------------------------------------------------------------------

def random_export(rng: random.Random, n_docs: int, members: list[str], entities: bool):
    texts = {d: "".join(rng.choice("abc de") for _ in range(rng.randint(0, 40)))
             for d in range(1, n_docs + 1)}
    truth, annotated, files = set(), set(), {}
    for who in members:
        lines = []
        for doc, text in texts.items():
            if rng.random() < 0.2:
                continue  # not confirmed: absent from the approved-only file
            annotated.add((doc, who))
            spans = set()
            for _ in range(rng.randint(0, 4) if text else 0):
                start = rng.randrange(len(text))
                end = rng.randint(start + 1, len(text))
                spans.add((start, end, rng.choice(["PER", "LOC", "=SUM(A1)"])))
            if spans and rng.random() < 0.3:  # a touching span
                start, end, label = next(iter(spans))
                if end < len(text):
                    spans.add((end, len(text), label))
            truth |= {(doc, who, *s) for s in spans}
            record = {"id": doc, "text": text}
            if entities:
                record["entities"] = [{"id": n, "label": l, "start_offset": s,
                                       "end_offset": e} for n, (s, e, l) in enumerate(spans)]
                record["relations"] = []
            else:
                record["label"] = [[s, e, l] for s, e, l in spans]
            lines.append(json.dumps(record))
        files[f"{who}.jsonl"] = "".join(line + "\n" for line in lines)
    return files, truth, annotated


@pytest.mark.parametrize("seed", range(12))
def test_random_exports_read_back_exactly(tmp_path, seed):
    rng = random.Random(seed)
    files, truth, annotated = random_export(rng, rng.randint(1, 8), ["ann", "bea", "cy"],
                                            entities=seed % 2 == 1)
    assert truth  # every seed holds spans: the test checks something
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    assert any(text.strip() for text in files.values())
    try:
        table = doccano.read(path)
    except AnnotationFileError as error:  # every member listed every example, some empty
        assert "full export" in str(error)
        table = doccano.read(path, empty_list="no-label")
        # told what empty lists mean, a member whose every list is empty is not an
        # annotator (the classification reader's rule: a project's admin)
        idle = {w for _, w in annotated} - {w for _, w, *_ in truth}
        annotated = {(d, w) for d, w in annotated if w not in idle}
    assert spans_of(table) == truth
    assert annotated_of(table) == annotated
    assert "=SUM(A1)" not in table.label_id.values.tolist() or any(
        t[-1] == "=SUM(A1)" for t in truth)  # a formula is data, kept as it is


# ------------------------------------------------------------------------------------------
# hostile inputs: one clear error naming the member file, the line and the field
# ------------------------------------------------------------------------------------------

GOOD = '{"id": 1, "text": "Ada met Bob.", "label": [[0, 3, "PER"]]}\n'


def one_member(tmp_path, text, name="alice.jsonl"):
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(name, text)
        archive.writestr("bob.jsonl", GOOD)
    return path


@pytest.mark.parametrize("spans, message", [
    ("[[0, 30, \"PER\"]]", r"end is past the document's text \(12 characters\)"),
    ("[[-1, 3, \"PER\"]]", r"start is negative"),
    ("[[3, 3, \"PER\"]]", r"start must be less than end"),
    ("[[5, 3, \"PER\"]]", r"start must be less than end"),
    ("[[0.5, 3, \"PER\"]]", r"whole-number character offsets, got 0.5"),
    ("[[\"0\", 3, \"PER\"]]", r"whole-number character offsets, got '0'"),
    ("[[true, 3, \"PER\"]]", r"whole-number character offsets, got True"),
    ("[[0, 3, [\"PER\"]]]", r"a label must be text"),
    ("[[0, 3, null]]", r"a label must be text"),
    ("[[0, 3, \"\"]]", r"an empty label"),
    ("[[0, 3]]", r"is not a span \[start, end, label\]"),
    ("[\"PER\"]", r"is not a span \[start, end, label\].*read_annotations"),
    ("{\"PER\": 1}", r"label must be a list of spans"),
])
def test_bad_spans_are_refused_naming_member_and_line(tmp_path, spans, message):
    text = GOOD + '{"id": 2, "text": "Ada met Bob.", "label": ' + spans + '}\n'
    with pytest.raises(AnnotationFileError, match=message) as error:
        doccano.read(one_member(tmp_path, text))
    assert error.value.line == 2 and "alice.jsonl" in error.value.path
    assert "\n" not in str(error.value)


def test_other_hostile_exports(tmp_path):
    with pytest.raises(AnnotationFileError, match=r"invalid JSON \(truncated or malformed\)"):
        doccano.read(one_member(tmp_path, GOOD + GOOD[:30]))
    with pytest.raises(AnnotationFileError, match=r"duplicate annotation: example 1 by "
                       r"'alice' already at line 1"):
        doccano.read(one_member(tmp_path, GOOD + GOOD))
    with pytest.raises(AnnotationFileError, match=r"appears twice with different texts"):
        doccano.read(one_member(tmp_path, GOOD.replace("Bob", "Bab")))
    with pytest.raises(AnnotationFileError, match=r"CSV export is a text classification"):
        doccano.read(one_member(tmp_path, "id,text,label\n1,a,x\n", "alice.csv"))
    with pytest.raises(AnnotationFileError, match=r"all.jsonl merges"):
        doccano.read(one_member(tmp_path, GOOD, "all.jsonl"))
    both = '{"id": 1, "text": "Ada met Bob.", "label": [], "entities": []}\n'
    with pytest.raises(AnnotationFileError, match=r"both 'label' and 'entities'"):
        doccano.read(one_member(tmp_path, both))
    with pytest.raises(AnnotationFileError, match=r"has no text"):
        doccano.read(one_member(tmp_path, '{"id": 2, "label": [[0, 1, "PER"]]}\n'))
    # a zip bomb is refused by the archive bounds, before it is expanded
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("alice.jsonl", GOOD + " " * (5 * 2**20))
    with pytest.raises(AnnotationFileError, match=r"alice.jsonl.*zip bomb"):
        doccano.read(path)


def test_nobody_marked_a_span(tmp_path):
    empty = '{"id": 1, "text": "Ada met Bob.", "label": []}\n'
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("alice.jsonl", empty)
        archive.writestr("bob.jsonl", empty.replace('"id": 1', '"id": 2'))
    with pytest.raises(AnnotationFileError, match=r"nobody marked a span and no label "
                       r"universe is declared"):
        doccano.read(path)
    table = doccano.read(path, labels=["PER"])
    assert table.sizes["span"] == 0 and table.label_id.values.tolist() == ["PER"]
    assert annotated_of(table) == {(1, "alice"), (2, "bob")}


def test_inputs_not_modified_and_ids_as_numbers(tmp_path):
    path = one_member(tmp_path, GOOD)
    before = path.read_bytes()
    table = doccano.read(path)
    assert path.read_bytes() == before
    assert table.document_id.values.tolist() == [1]
    np.testing.assert_array_equal(table.annotated.values, [[True, True]])


def test_looks_like():
    assert doccano.looks_like([(1, json.loads(GOOD))])
    assert doccano.looks_like([{"id": 1, "text": "a", "entities": [
        {"id": 1, "label": "X", "start_offset": 0, "end_offset": 1}]}])
    assert not doccano.looks_like([{"id": 1, "text": "a", "label": ["pos"]}])
    assert not doccano.looks_like([{"id": 1, "text": "a", "label": []}])
    assert not doccano.looks_like([{"id": 1, "annotations": []}])
    assert not doccano.looks_like(io.StringIO().readlines())


def test_offsets_after_a_character_beyond_the_bmp_are_refused(tmp_path):
    # doccano's editor counts offsets in JavaScript's UTF-16 units (doccano issue #2290):
    # "Ada" after an emoji is [3, 6), which read as characters would be "da " (a wrong
    # span without an error). The export gives no span text to tell which unit was counted
    text = "\U0001F600 Ada met Bob."
    assert text[2:5] == "Ada"
    good = json.dumps({"id": 1, "text": text, "label": [[2, 5, "PER"]]}) + "\n"
    utf16 = json.dumps({"id": 1, "text": text, "label": [[3, 6, "PER"]]}) + "\n"
    for member in (good, utf16):
        path = tmp_path / "export.zip"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("ann.jsonl", member)
            archive.writestr("bob.jsonl", good)
        with pytest.raises(AnnotationFileError, match="UTF-16"):
            doccano.read(path)
    # a span wholly before the first such character counts the same either way: read
    before = json.dumps({"id": 1, "text": "Ada \U0001F600", "label": [[0, 3, "PER"]]}) + "\n"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("ann.jsonl", before)
        archive.writestr("bob.jsonl", before)
    assert doccano.read(path).start.values.tolist() == [0, 0]
