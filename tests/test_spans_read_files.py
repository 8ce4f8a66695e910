"""read_spans and the Prodigy, brat and CoNLL span readers.

Fixtures under tests/data/spans/ are shaped like each tool's documented export (see
tests/data/spans/make_span_fixtures.py and the readers' docstrings for the sources). The spans
each file means are written out here by hand, from the texts with ``str.index`` or from the
tag definitions, never by the readers; random round trips write files with writers written
here from the formats' definitions and read them back.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

import xr_agreement
from xr_agreement.io import AnnotationFileError
from xr_agreement.io.spans import brat, conll, prodigy
from xr_agreement.io.spans.reading import detect_span_tool

DATA = Path(__file__).parent / "data" / "spans"
TEXTS = {
    "news1": "Annotators from the United Nations met in Nairobi on Monday.",
    "news2": "Barack Obama visited New York City.",
    "news3": "Nothing to see here.",
}


def at(doc, phrase, label, occurrence=0):
    """(start, end, label) of a phrase in a fixture text, found by str.index."""
    start = -1
    for _ in range(occurrence + 1):
        start = TEXTS[doc].index(phrase, start + 1)
    return start, start + len(phrase), label


def records(table) -> set:
    return {(d.item() if hasattr(d, "item") else d, str(a), int(s), int(e), str(lab))
            for d, a, s, e, lab in zip(table.document.values, table.annotator.values,
                                       table.start.values, table.end.values,
                                       table.label.values)}


def annotated(table) -> dict:
    return {(d.item() if hasattr(d, "item") else d, str(a)):
            bool(table.annotated.sel(document_id=d, annotator_id=a))
            for d in table.document_id.values for a in table.annotator_id.values}


def netcdf_safe(attrs):
    return all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
               for v in attrs.values())


# --------------------------------------------------------------------------------------
# Prodigy
# --------------------------------------------------------------------------------------

HASH = {"news1": 1000, "news2": 1000 + 7919, "news3": 1000 + 2 * 7919}


def test_prodigy_ner_manual_fixture():
    table = xr_agreement.read_spans(DATA / "prodigy" / "ner_manual.jsonl")
    alice, bob, carol = "ner_news-alice", "ner_news-bob", "ner_news-carol"
    expected = {(HASH[d], who, *at(d, phrase, label)) for d, who, phrase, label in [
        ("news1", alice, "the United Nations", "ORG"), ("news1", alice, "Nairobi", "LOC"),
        ("news1", alice, "Monday", "DATE"), ("news1", bob, "United Nations", "ORG"),
        ("news1", bob, "Nairobi", "LOC"), ("news2", alice, "Barack Obama", "PER"),
        ("news2", alice, "New York City", "LOC"), ("news2", carol, "Obama", "PER"),
        ("news2", carol, "New York", "LOC")]}
    assert records(table) == expected
    # accept: annotated (news3's accepts with no span: read, nothing marked); ignore and
    # reject (Prodigy: "the text itself may be corrupted"): no decision
    assert annotated(table) == {
        (HASH["news1"], alice): True, (HASH["news1"], bob): True, (HASH["news1"], carol): False,
        (HASH["news2"], alice): True, (HASH["news2"], bob): False, (HASH["news2"], carol): True,
        (HASH["news3"], alice): True, (HASH["news3"], bob): True, (HASH["news3"], carol): False}
    assert {int(h): str(t) for h, t in zip(table.document_id.values, table.text.values)} == \
        {HASH[d]: TEXTS[d] for d in TEXTS}
    assert {int(h): int(n) for h, n in zip(table.document_id.values, table.length.values)} == \
        {HASH[d]: len(TEXTS[d]) for d in TEXTS}
    assert table.attrs["tool"] == "prodigy" and table.attrs["offsets_unit"] == "character"
    assert table.attrs["n_ignored"] == 2 and table.attrs["n_rejected"] == 1
    assert "2 ignored, 1 rejected" in table.attrs["notes"]
    assert netcdf_safe(table.attrs)


def test_prodigy_token_offsets_match_an_independent_tokenisation():
    table = xr_agreement.read_spans(DATA / "prodigy" / "ner_manual.jsonl", unit="token")
    assert table.attrs["offsets_unit"] == "token" and "text" not in table
    for doc_id in table.document_id.values:
        doc = next(d for d, h in HASH.items() if h == doc_id)
        words = list(re.finditer(r"\w+|[^\w\s]", TEXTS[doc]))
        assert int(table.length.sel(document_id=doc_id)) == len(words)
    chars = xr_agreement.read_spans(DATA / "prodigy" / "ner_manual.jsonl")
    by_chars = sorted(records(chars))
    by_tokens = sorted(records(table))
    assert len(by_chars) == len(by_tokens)
    for (d, a, s, e, lab), (d2, a2, ts, te, lab2) in zip(by_chars, by_tokens):
        doc = next(k for k, h in HASH.items() if h == d)
        starts = [m.start() for m in re.finditer(r"\w+|[^\w\s]", TEXTS[doc])]
        ends = [m.end() for m in re.finditer(r"\w+|[^\w\s]", TEXTS[doc])]
        assert (d, a, lab) == (d2, a2, lab2)
        assert (starts.index(s), ends.index(e) + 1) == (ts, te)


def test_prodigy_spans_manual_overlapping_and_nested():
    table = prodigy.read(DATA / "prodigy" / "spans_manual.jsonl")
    alice, bob, d = "spans_news-alice", "spans_news-bob", HASH["news2"]
    assert records(table) == {
        (d, alice, *at("news2", "Barack Obama", "PER")), (d, alice, *at("news2", "Obama", "SURNAME")),
        (d, alice, *at("news2", "New York City", "LOC")), (d, alice, *at("news2", "New York", "LOC")),
        (d, bob, *at("news2", "Barack Obama", "PER")), (d, bob, *at("news2", "York City", "LOC"))}
    assert list(table.label_id.values) == ["PER", "SURNAME", "LOC"]
    with_universe = prodigy.read(DATA / "prodigy" / "spans_manual.jsonl",
                                 labels=["LOC", "PER", "SURNAME", "ORG"])
    assert list(with_universe.label_id.values) == ["LOC", "PER", "SURNAME", "ORG"]


def write_jsonl(path, rows, newline="\n", bom=False):
    text = newline.join(json.dumps(r) for r in rows) + newline
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


def task(text, who, answer="accept", spans=(), hash_=1, **extra):
    return {"text": text, "_input_hash": hash_, "_task_hash": 2, "spans": list(spans),
            "answer": answer, "_annotator_id": who, "_session_id": who,
            "_view_id": "ner_manual", **extra}


def test_prodigy_unicode_crlf_bom_and_session_ids(tmp_path):
    text = "Café 🙂 in Zürich"
    start = text.index("Zürich")  # Python str offsets: code points, as Prodigy's
    rows = [task(text, "a", spans=[{"start": start, "end": start + 6, "label": "LOC",
                                    "text": "Zürich"}]),
            {**task(text, None), "_annotator_id": None, "_session_id": "sess-b"}]
    table = xr_agreement.read_spans(write_jsonl(tmp_path / "x.jsonl", rows, "\r\n", bom=True))
    assert records(table) == {(1, "a", start, start + 6, "LOC")}
    assert list(table.annotator_id.values) == ["a", "sess-b"]
    assert table.annotated.values.tolist() == [[True, True]]


def test_prodigy_annotator_who_only_skipped_is_kept_as_not_annotated(tmp_path):
    rows = [task("ab", "a", spans=[{"start": 0, "end": 1, "label": "X"}]),
            task("ab", "b", answer="ignore")]
    table = prodigy.read(write_jsonl(tmp_path / "x.jsonl", rows))
    assert annotated(table) == {(1, "a"): True, (1, "b"): False}


@pytest.mark.parametrize("rows, message", [
    ([task("ab", "a"), task("ab", "a", answer="ignore")], "already on line 1"),
    ([task("ab", "a", answer="maybe")], "answer must be one of"),
    ([{**task("ab", "a"), "_input_hash": None}], "without _input_hash"),
    ([{**task("ab", "a"), "_input_hash": [1]}], "_input_hash must be an id"),
    ([{**task("ab", None), "_session_id": ""}], "without _annotator_id"),
    ([task("ab", "a", spans=[{"start": 1, "end": 5, "label": "X"}])], "outside the text"),
    ([task("ab", "a", spans=[{"start": 1, "end": 1, "label": "X"}])], "start >= end"),
    ([task("ab", "a", spans=[{"start": 0, "end": 1.5, "label": "X"}])], "whole number"),
    ([task("ab", "a", spans=[{"start": 0, "end": 1, "label": ""}])], "label must be text"),
    ([task("ab", "a", spans=[{"start": 0, "end": 1, "label": "X", "text": "b"}])], "quotes"),
    ([task("ab", "a", spans=[{"start": 0, "end": 1, "label": "X"}] * 2)], "same span"),
    ([task("ab", "a"), task("abc", "b")], "two texts"),
    ([{**task("ab", "a"), "_view_id": "ner"}], "binary ner task"),
    ([task("ab", "a", answer="ignore")], "no task is accepted"),
    # a task of another interface (textcat's choice) mixed into the dataset: without a
    # spans list it is no statement about spans, never "marked nothing"
    ([task("ab", "a", spans=[{"start": 0, "end": 1, "label": "X"}]),
      {k: v for k, v in task("ab", "b", _view_id="choice", accept=["POS"]).items()
       if k != "spans"}], "without a spans list"),
])
def test_prodigy_refusals_name_the_line(tmp_path, rows, message):
    with pytest.raises(AnnotationFileError, match=re.escape(message)):
        prodigy.read(write_jsonl(tmp_path / "x.jsonl", rows))


def test_prodigy_truncated_line_array_and_universe(tmp_path):
    path = tmp_path / "cut.jsonl"
    good = json.dumps(task("ab", "a"))
    path.write_text(good + "\n" + good[: len(good) // 2] + "\n")
    with pytest.raises(AnnotationFileError, match=r"line 2: invalid JSON \(truncated"):
        prodigy.read(path)
    array = tmp_path / "array.json"
    array.write_text(json.dumps([task("ab", "a")]))
    with pytest.raises(AnnotationFileError, match="JSON lines"):
        prodigy.read(array)
    rows = [task("ab", "a", spans=[{"start": 0, "end": 1, "label": "X"}])]
    with pytest.raises(AnnotationFileError, match="'X' is not in the declared label universe"):
        prodigy.read(write_jsonl(tmp_path / "u.jsonl", rows), labels=["Y"])
    tokens = [task("ab", "a", spans=[{"start": 0, "end": 1, "label": "X", "token_start": 0,
                                      "token_end": 0}],
                   tokens=[{"text": "ab", "start": 0, "end": 2, "id": 0}])]
    with pytest.raises(AnnotationFileError, match="do not cover exactly"):
        prodigy.read(write_jsonl(tmp_path / "t.jsonl", tokens), unit="token")


def test_prodigy_random_round_trip(tmp_path):
    """Random overlapping spans written as Prodigy tasks, read back identically."""
    rng = random.Random(3)
    rows, expected, accepted = [], set(), set()
    for doc in range(6):
        text = "".join(rng.choice("ab ") for _ in range(rng.randint(1, 40)))
        for who in ("x", "y", "z"):
            answer = rng.choice(["accept", "accept", "ignore", "reject"])
            spans = set()
            for _ in range(rng.randint(0, 5)):
                s = rng.randrange(len(text))
                spans.add((s, rng.randint(s + 1, len(text)), rng.choice("ABC")))
            rows.append(task(text, who, answer, [{"start": s, "end": e, "label": lab}
                                                 for s, e, lab in spans], hash_=f"h{doc}"))
            if answer == "accept":
                accepted.add((f"h{doc}", who))
                expected |= {(f"h{doc}", who, s, e, lab) for s, e, lab in spans}
    table = prodigy.read(write_jsonl(tmp_path / "r.jsonl", rows))
    assert records(table) == expected
    assert {k for k, v in annotated(table).items() if v} == accepted


# --------------------------------------------------------------------------------------
# brat
# --------------------------------------------------------------------------------------

BRAT_EXPECTED = {
    ("news1", "alice", *at("news1", "the United Nations", "ORG")),
    ("news1", "alice", *at("news1", "Nairobi", "LOC")),
    ("news1", "alice", *at("news1", "Monday", "DATE")),
    ("news1", "bob", *at("news1", "United Nations", "ORG")),
    ("news1", "bob", *at("news1", "Nairobi", "LOC")),
    ("news2", "alice", *at("news2", "Barack Obama", "PER")),
    ("news2", "alice", *at("news2", "New York City", "LOC")),
    ("news2", "carol", *at("news2", "Obama", "PER")),
    ("news2", "carol", *at("news2", "New", "LOC")),  # the discontinuous "New ... City"
    ("news2", "carol", *at("news2", "City", "LOC")),
    ("news2", "carol", *at("news2", "New York City", "LOC")),
}
BRAT_ANNOTATED = {("news1", "alice"): True, ("news1", "bob"): True, ("news1", "carol"): True,
                  ("news2", "alice"): True, ("news2", "bob"): False, ("news2", "carol"): True}


def test_brat_fixture_folder():
    table = xr_agreement.read_spans(DATA / "brat" / "project")
    assert records(table) == BRAT_EXPECTED
    # carol's empty news1.ann: annotated, nothing marked; bob has no news2.ann: no decision
    assert annotated(table) == BRAT_ANNOTATED
    assert dict(zip(table.document_id.values, table.text.values)) == \
        {d: TEXTS[d] for d in ("news1", "news2")}
    assert table.attrs["tool"] == "brat" and table.attrs["discontinuous"] == 1
    assert "1 attribute, 1 normalization, 1 note, 1 relation" in table.attrs["notes"]
    assert table.attrs["n_empty_ann"] == 1 and "1 .ann files mark no text" in \
        table.attrs["notes"]
    assert netcdf_safe(table.attrs)
    # an empty .ann may be a document never opened (brat needs one to open it): asked for
    missing = xr_agreement.read_spans(DATA / "brat" / "project", empty_list="missing")
    assert records(missing) == BRAT_EXPECTED
    assert annotated(missing) == {**BRAT_ANNOTATED, ("news1", "carol"): False}


def test_brat_zip_with_a_wrapping_folder_and_shared_texts(tmp_path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for file in sorted((DATA / "brat" / "project").rglob("*")):
            relative = file.relative_to(DATA / "brat" / "project").as_posix()
            if file.is_file() and file.suffix == ".ann":
                z.write(file, "export/" + relative)
        for doc in ("news1", "news2"):  # one .txt per document, at the top
            z.writestr(f"export/{doc}.txt", TEXTS[doc])
        z.writestr("__MACOSX/export/._news1.txt", "junk")
    table = xr_agreement.read_spans(archive)
    assert records(table) == BRAT_EXPECTED
    # without a .txt in its folder, bob's news2 still has no .ann: no decision
    assert annotated(table) == BRAT_ANNOTATED


def make_brat(root: Path, files: dict) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root


def test_brat_crlf_offsets_count_the_carriage_return(tmp_path):
    text = "first line\r\nParis is here\r\n"
    start = text.index("Paris")  # brat reads the .txt unchanged: \r\n is two characters
    root = make_brat(tmp_path / "p", {"d.txt": text,
                                      "a/d.ann": f"T1\tLOC {start} {start + 5}\tParis\r\n",
                                      "b/d.ann": ""})
    table = brat.read(root)
    assert records(table) == {("d", "a", start, start + 5, "LOC")}
    assert int(table.length.values[0]) == len(text)


@pytest.mark.parametrize("files, message", [
    ({"d.txt": "Japan", "a/d.ann": "T1\tLOC 0 5\tChina\n"}, "do not belong to this text"),
    ({"d.txt": "Japan", "a/d.ann": "T1\tLOC 0 9\tJapan\n"}, "past the text"),
    ({"d.txt": "Japan", "a/d.ann": "T1\tLOC 3 3\tx\n"}, "start must be less than end"),
    ({"d.txt": "Japan", "a/d.ann": "T1\tLOC 0 5\tJapan\nT1\tORG 0 5\tJapan\n"},
     "already on line 1"),
    ({"d.txt": "Japan", "a/d.ann": "X1\tLOC 0 5\tJapan\n"}, "none of brat's"),
    ({"d.txt": "Japan", "a/d.ann": "T1\tLOC 0 5\n"}, "truncated line"),
    ({"d.txt": "Japan", "a/d.ann": "T1\tLOC 0\tJapan\n"}, "expected 'TYPE START END'"),
    ({"d.txt": "Japan", "a/d.ann": "T1\tLOC 0 5\tJapan\nT2\tLOC 0 5\tJapan\n"},
     "already marked by T1"),
    ({"d.txt": "Japan is", "a/d.ann": "T1\tLOC 0 5;3 8\tJapan an is\n"}, "overlap"),
    ({"a/d.ann": "T1\tLOC 0 5\tJapan\n"}, "has no d.txt"),
    ({"d.txt": "Japan", "d.ann": "T1\tLOC 0 5\tJapan\n"}, "not in an annotator's folder"),
    ({"d.txt": "Japan", "a/d.txt": "China", "a/d.ann": "", "b/d.ann": ""},
     "two different texts"),
    ({"d.txt": "Japan", "a/d.ann": "garbage line\n"}, "not a brat annotation line"),
])
def test_brat_refusals_name_file_line_and_annotation(tmp_path, files, message):
    with pytest.raises(AnnotationFileError, match=re.escape(message)):
        brat.read(make_brat(tmp_path / "p", files))


def test_brat_label_universe_and_hostile_zip(tmp_path):
    root = make_brat(tmp_path / "p", {"d.txt": "Japan", "a/d.ann": "T1\tLOC 0 5\tJapan\n"})
    with pytest.raises(AnnotationFileError, match="'LOC' is not in the declared"):
        brat.read(root, labels=["ORG"])
    assert list(brat.read(root, labels=["ORG", "LOC"]).label_id.values) == ["ORG", "LOC"]
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("../a/d.ann", "")
    with pytest.raises(AnnotationFileError, match="climbing path"):
        brat.read(archive)


def test_brat_random_round_trip_with_discontinuous_spans(tmp_path):
    """Random annotations (some discontinuous) written as .ann files; each fragment must
    come back as a span of the annotation's type."""
    rng = random.Random(11)
    files, expected, done = {}, set(), set()
    for doc in range(5):
        text = "".join(rng.choice("xy \n") for _ in range(rng.randint(10, 60)))
        files[f"doc{doc}.txt"] = text
        for who in ("ann", "bob", "cy"):
            if rng.random() < 0.2:
                continue  # this annotator never opened the document
            done.add((f"doc{doc}", who))
            lines, used = [], set()
            for number in range(1, rng.randint(1, 6)):
                cuts = sorted(rng.sample(range(len(text) + 1), 2 * rng.choice([1, 1, 2])))
                fragments = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts), 2)]
                label = rng.choice(["P", "Q"])
                if any(s >= e for s, e in fragments) or any((label, *f) in used for f in fragments):
                    continue
                used |= {(label, *f) for f in fragments}
                offsets = ";".join(f"{s} {e}" for s, e in fragments)
                quoted = " ".join(text[s:e] for s, e in fragments).replace("\n", " ")
                lines.append(f"T{number}\t{label} {offsets}\t{quoted}")
                expected |= {(f"doc{doc}", who, s, e, label) for s, e in fragments}
            lines.append(f"#1\tAnnotatorNotes T1\tnote")
            files[f"{who}/doc{doc}.ann"] = "\n".join(lines) + "\n"
    table = brat.read(make_brat(tmp_path / "p", files))
    assert records(table) == expected
    assert {k for k, v in annotated(table).items() if v} == done


# --------------------------------------------------------------------------------------
# CoNLL
# --------------------------------------------------------------------------------------

# the chunks of the fixtures' tags, read off the tags by hand
CONLL_IOB2 = {(1, "alice", 0, 1, "ORG"), (1, "alice", 2, 3, "MISC"), (2, "alice", 0, 2, "PER"),
              (2, "alice", 2, 3, "LOC"), (1, "bob", 0, 1, "ORG"), (1, "bob", 2, 4, "MISC"),
              (2, "bob", 0, 1, "PER"), (2, "bob", 1, 2, "PER"), (2, "bob", 2, 3, "LOC")}


def test_conll_iob2_folder_of_annotator_files():
    table = xr_agreement.read_spans(DATA / "conll" / "iob2")
    assert records(table) == CONLL_IOB2
    # -DOCSTART- blocks: document 2 runs on across its blank line (4 tokens)
    assert table.length.values.tolist() == [5, 4]
    assert table.attrs["offsets_unit"] == "token"
    assert table.attrs["documents"] == "-DOCSTART- blocks"
    assert all(annotated(table).values()) and netcdf_safe(table.attrs)


def test_conll_bioes_and_iob1():
    bioes = xr_agreement.read_spans(DATA / "conll" / "bioes")
    assert records(bioes) == {(1, "alice", 0, 1, "ORG"), (1, "alice", 2, 3, "MISC"),
                              (2, "alice", 0, 2, "PER"), (2, "alice", 2, 3, "LOC"),
                              (1, "bob", 0, 1, "ORG"), (1, "bob", 2, 4, "MISC"),
                              (2, "bob", 2, 3, "LOC")}
    with pytest.raises(AnnotationFileError, match=r"alice.conll: line 3: document 1, token 0 "
                       r"\('EU'\), annotator 'alice': I-ORG at the document's start is not "
                       r"IOB2.*scheme='iob1'"):
        xr_agreement.read_spans(DATA / "conll" / "iob1")
    # IOB1 (Ramshaw & Marcus): the same chunks as the IOB2 files
    assert records(xr_agreement.read_spans(DATA / "conll" / "iob1", scheme="iob1")) == \
        CONLL_IOB2


def test_conll_one_file_with_a_column_per_annotator():
    table = xr_agreement.read_spans(DATA / "conll" / "columns.tsv")
    assert records(table) == {(1, "alice", 0, 2, "PER"), (1, "alice", 3, 6, "LOC"),
                              (1, "bob", 0, 2, "PER"), (1, "bob", 3, 4, "LOC"),
                              (1, "bob", 4, 5, "LOC")}
    # carol's "_" column: document 1 not annotated; all "O": annotated, nothing marked
    assert annotated(table) == {(1, "alice"): True, (1, "bob"): True, (1, "carol"): False,
                                (2, "alice"): True, (2, "bob"): True, (2, "carol"): True}
    assert table.attrs["documents"] == "sentences" and table.length.values.tolist() == [7, 3]


def write_tags(path: Path, sentences, sep="\t"):
    path.write_text("\n\n".join("\n".join(f"{t}{sep}{tag}" for t, tag in s) for s in sentences)
                    + "\n")


@pytest.mark.parametrize("files, message", [
    ({"a.conll": [[("x", "B-P"), ("y", "O")]], "b.conll": [[("x", "O"), ("z", "O")]]},
     "document 1, token 1: b.conll has 'z' (line 2)"),
    ({"a.conll": [[("x", "O")], [("y", "O")]], "b.conll": [[("x", "O")]]}, "holds 1 documents"),
    ({"a.conll": [[("x", "PER")]], "b.conll": [[("x", "O")]]}, "'PER' is not a tag"),
    ({"a.conll": [[("x", "O"), ("y", "I-P")]], "b.conll": [[("x", "O"), ("y", "O")]]},
     "token 1 ('y'), annotator 'a': I-P after O is not IOB2"),
    ({"a.conll": [[("x", "B-P"), ("y", "I-Q")]], "b.conll": [[("x", "O"), ("y", "O")]]},
     "I-Q after a chunk of P"),
    ({"a.conll": [[("x", "B-P"), ("y", "O")]], "b.conll": [[("x", "S-P"), ("y", "O")]]},
     None),  # a's column is IOB2, b's BIOES: each read by its own scheme
    ({"a.conll": [[("x", "B-P"), ("y", "O")]], "b.conll": [[("x", "B-P"), ("y", "S-P")]]},
     "not closed by E- (BIOES)"),
    ({"a.conll": [[("x", "O"), ("y", "E-P")]], "b.conll": [[("x", "O"), ("y", "O")]]},
     "E-P does not continue a chunk"),
    ({"a.conll": [[("x", "_"), ("y", "O")]], "b.conll": [[("x", "O"), ("y", "O")]]},
     "annotated whole or not"),
])
def test_conll_refusals_name_document_token_and_line(tmp_path, files, message):
    for name, sentences in files.items():
        write_tags(tmp_path / name, sentences)
    if message is None:
        assert len(conll.read(tmp_path).span) == 2
        return
    with pytest.raises(AnnotationFileError, match=re.escape(message)):
        conll.read(tmp_path)


def test_conll_hostile_single_files(tmp_path):
    one = tmp_path / "one.conll"
    one.write_text("Paris B-LOC\nis O\n")
    with pytest.raises(AnnotationFileError, match="one annotator's tags"):
        conll.read(one)
    studio = tmp_path / "ls.conll"
    studio.write_text("-DOCSTART- -X- O\nParis -X- _ B-LOC\nis -X- _ O\n")
    with pytest.raises(AnnotationFileError, match="Label Studio CONLL2003 export"):
        xr_agreement.read_spans(studio)
    cut = tmp_path / "cut.tsv"
    cut.write_text("token\ta\tb\nParis\tB-LOC\tB-LOC\nis\tO\n")
    with pytest.raises(AnnotationFileError, match="line 3: 2 columns where the header has 3"):
        conll.read(cut)
    twice = tmp_path / "twice.tsv"
    twice.write_text("token\ta\ta\nParis\tB-LOC\tB-LOC\n")
    with pytest.raises(AnnotationFileError, match="names an annotator twice"):
        conll.read(twice)
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "a.conll").write_text("Paris\n")
    (folder / "b.conll").write_text("Paris B-LOC\n")
    with pytest.raises(AnnotationFileError, match="has no tag column"):
        conll.read(folder)
    crlf = tmp_path / "crlf.tsv"
    crlf.write_bytes("\ufefftoken\ta\tb\r\n# a comment\r\nParis\tB-LOC\tO\r\n#\tO\tO\r\n"
                     .encode("utf-8"))
    table = conll.read(crlf)
    assert records(table) == {(1, "a", 0, 1, "LOC")} and table.length.values.tolist() == [2]


def tags_of(chunks, n, scheme):
    """The tags of non-overlapping chunks, written from each scheme's definition."""
    tags = ["O"] * n
    previous_end, previous_label = None, None
    for start, end, label in sorted(chunks):
        for i in range(start, end):
            tags[i] = f"I-{label}"
        if scheme == "iob2":
            tags[start] = f"B-{label}"
        elif scheme == "bioes":
            if end - start == 1:
                tags[start] = f"S-{label}"
            else:
                tags[start], tags[end - 1] = f"B-{label}", f"E-{label}"
        elif scheme == "iob1" and previous_end == start and previous_label == label:
            tags[start] = f"B-{label}"  # B- only between two chunks of one type
        previous_end, previous_label = end, label
    return tags


@pytest.mark.parametrize("scheme", ["iob2", "bioes", "iob1"])
def test_conll_random_round_trip(tmp_path, scheme):
    rng = random.Random({"iob2": 1, "bioes": 2, "iob1": 3}[scheme])
    documents = [[f"w{rng.randrange(9)}" for _ in range(rng.randint(1, 15))] for _ in range(8)]
    expected = set()
    for who in ("a", "b", "c"):
        lines = []
        for number, words in enumerate(documents, start=1):
            chunks, i = [], 0
            while i < len(words):
                if rng.random() < 0.4:
                    end = rng.randint(i + 1, len(words))
                    chunks.append((i, end, rng.choice(["P", "Q"])))
                    i = end
                else:
                    i += 1
            expected |= {(number, who, s, e, lab) for s, e, lab in chunks}
            tags = tags_of(chunks, len(words), scheme)
            lines += ["-DOCSTART- -X- -X- O", ""] + [f"{w} NN O {t}" for w, t in
                                                     zip(words, tags)] + [""]
        (tmp_path / f"{who}.iob").write_text("\n".join(lines))
    table = xr_agreement.read_spans(tmp_path, tool="conll",
                                    scheme="iob1" if scheme == "iob1" else None)
    assert records(table) == expected
    assert table.document_id.values.tolist() == list(range(1, len(documents) + 1))
    assert table.length.values.tolist() == [len(w) for w in documents]


# --------------------------------------------------------------------------------------
# read_spans: which reader
# --------------------------------------------------------------------------------------


def test_detection_by_content_not_name(tmp_path):
    assert detect_span_tool(DATA / "brat" / "project") == "brat"
    assert detect_span_tool(DATA / "conll" / "iob2") == "conll"
    assert detect_span_tool(DATA / "conll" / "columns.tsv") == "conll"
    assert detect_span_tool(DATA / "prodigy" / "ner_manual.jsonl") == "prodigy"
    renamed = tmp_path / "export.txt"  # a Prodigy file by any name
    shutil.copy(DATA / "prodigy" / "ner_manual.jsonl", renamed)
    assert detect_span_tool(renamed) == "prodigy"
    prose = tmp_path / "notes.conll"
    prose.write_text("Just some prose, not a tagged file.\nAnother line of it.\n")
    with pytest.raises(AnnotationFileError, match="label_studio, prodigy, doccano, brat, "
                       "conll: name one with tool="):
        xr_agreement.read_spans(prose)
    plain = tmp_path / "plain.jsonl"
    plain.write_text('{"id": 1, "text": "hi"}\n')
    with pytest.raises(AnnotationFileError, match="tool="):
        xr_agreement.read_spans(plain)
    single = DATA / "brat" / "project" / "alice" / "news1.ann"
    with pytest.raises(AnnotationFileError, match="one folder per annotator"):
        xr_agreement.read_spans(single)


def test_read_spans_options():
    path = DATA / "prodigy" / "ner_manual.jsonl"
    assert records(xr_agreement.read_spans(path, tool="prodigy")) == \
        records(xr_agreement.read_spans(path))
    with pytest.raises(ValueError, match="tool must be one of"):
        xr_agreement.read_spans(path, tool="inception")
    with pytest.raises(ValueError, match="control= picks a Label Studio control"):
        xr_agreement.read_spans(path, control="label")
    with pytest.raises(ValueError, match="unit= is for Prodigy"):
        xr_agreement.read_spans(DATA / "conll" / "iob2", unit="character")
    with pytest.raises(ValueError, match="scheme= is for CoNLL"):
        xr_agreement.read_spans(path, scheme="iob1")
    with pytest.raises(AnnotationFileError, match="file not found"):
        xr_agreement.read_spans(DATA / "nowhere.jsonl")


def test_huge_files_are_refused_before_reading(tmp_path, monkeypatch):
    from xr_agreement.io.spans import _shared

    monkeypatch.setattr(_shared, "MAX_MEMBER_BYTES", 100)
    big = tmp_path / "big.tsv"
    big.write_text("token\ta\tb\n" + "x\tO\tO\n" * 50)
    with pytest.raises(AnnotationFileError, match="more than the 0 MiB"):
        conll.read(big)
    with pytest.raises(AnnotationFileError, match="more than the 0 MiB"):
        xr_agreement.read_spans(big)  # detection reads nothing of it either


def test_inputs_not_modified(tmp_path):
    copy = tmp_path / "project"
    shutil.copytree(DATA / "brat" / "project", copy)
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    brat.read(copy)
    assert before == {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    assert np.array_equal(*[xr_agreement.read_spans(copy).start.values] * 2)


def test_label_studio_table_export_told_by_its_columns(tmp_path):
    path = tmp_path / "project-1.csv"
    path.write_text('annotation_id,annotator,id,label,lead_time,text\n'
                    '5,1,7,"[{""start"": 0, ""end"": 3, ""labels"": [""PER""]}]",2.0,Ada\n')
    assert detect_span_tool(path) == "label_studio"
    with pytest.raises(ValueError, match="empty_list= is for doccano and brat"):
        xr_agreement.read_spans(DATA / "conll" / "iob2", empty_list="missing")


def test_conll_zip_of_annotator_files_and_sentences(tmp_path):
    archive = tmp_path / "tags.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("round1/ann.bio", "Ada B-PER\nsang O\n\nin O\nParis B-LOC\n")
        z.writestr("round1/bob.bio", "Ada B-PER\nsang O\n\nin O\nParis O\n")
        z.writestr("round1/README.md", "not read")
    table = xr_agreement.read_spans(archive)
    assert table.attrs["documents"] == "sentences"
    assert records(table) == {(1, "ann", 0, 1, "PER"), (2, "ann", 1, 2, "LOC"),
                              (1, "bob", 0, 1, "PER")}
    assert all(annotated(table).values()) and table.length.values.tolist() == [2, 2]


def test_brat_byte_order_mark_is_dropped_and_shifted_offsets_refused(tmp_path):
    # brat counts a BOM as a character; it is dropped here, so offsets written against it
    # are one off: refused by the text check, never read shifted
    root = make_brat(tmp_path / "p", {"d.txt": "\ufeffJapan is here",
                                      "a/d.ann": "T1\tLOC 1 6\tJapan\n"})
    with pytest.raises(AnnotationFileError, match="do not belong to this text"):
        brat.read(root)


def test_brat_folders_too_large_together_are_refused(tmp_path, monkeypatch):
    from xr_agreement.io.spans import _shared

    root = make_brat(tmp_path / "p", {"d.txt": "Japan" * 40, "a/d.ann": "", "b/d.ann": ""})
    monkeypatch.setattr(_shared, "MAX_ARCHIVE_BYTES", 150)
    with pytest.raises(AnnotationFileError, match="together"):
        brat.read(root)


def test_brat_sub_folders_below_the_annotators_name_documents(tmp_path):
    root = make_brat(tmp_path / "p", {
        "b1/d.txt": "Japan", "b2/d.txt": "Kenya!",
        "alice/b1/d.ann": "T1\tLOC 0 5\tJapan\n", "alice/b2/d.ann": "",
        "bob/b1/d.ann": "T1\tORG 0 5\tJapan\n"})
    table = brat.read(root)
    assert records(table) == {("b1/d", "alice", 0, 5, "LOC"), ("b1/d", "bob", 0, 5, "ORG")}
    assert annotated(table) == {("b1/d", "alice"): True, ("b1/d", "bob"): True,
                                ("b2/d", "alice"): True, ("b2/d", "bob"): False}
    assert table.length.sel(document_id="b2/d").item() == len("Kenya!")


def test_conll_two_files_naming_one_annotator_and_a_folder_given_as_prodigy(tmp_path):
    archive = tmp_path / "tags.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("r1/ann.conll", "Ada B-PER\n")
        z.writestr("r2/ann.conll", "Ada B-PER\n")
    with pytest.raises(AnnotationFileError, match="name one annotator 'ann'"):
        conll.read(archive)
    with pytest.raises(AnnotationFileError, match="a folder, where this reader reads one file"):
        xr_agreement.read_spans(DATA / "conll" / "iob2", tool="prodigy")


def test_brat_tail_comment_unordered_fragments_and_tabs(tmp_path):
    text = "Japan\tis\nhere"
    root = make_brat(tmp_path / "p", {
        "d.txt": text,
        "a/d.ann": "T1\tLOC 0 5\tJapan checked by bob\n"      # a comment after the text
                   "T2\tLOC 9 13;6 8\there is\n"             # fragments in any order
                   "T3\tPHRASE 0 8\tJapan\tis\n"             # a tab inside the text
                   "T4\tPHRASE 6 13\tis here\n",              # a line break quoted as a space
        "b/d.ann": ""})
    assert text[9:13] == "here" and text[6:8] == "is"
    assert records(brat.read(root)) == {("d", "a", 0, 5, "LOC"), ("d", "a", 9, 13, "LOC"),
                                        ("d", "a", 6, 8, "LOC"), ("d", "a", 0, 8, "PHRASE"),
                                        ("d", "a", 6, 13, "PHRASE")}


def test_a_label_studio_config_is_not_a_label_list(tmp_path):
    config = tmp_path / "config.xml"
    config.write_text('<View><Labels name="label"><Label value="PER"/></Labels></View>')
    with pytest.raises(AnnotationFileError, match="labeling config"):
        xr_agreement.read_spans(DATA / "conll" / "iob2", labels=config)
    universe = tmp_path / "labels.txt"
    universe.write_text("ORG\nMISC\nPER\nLOC\n")
    table = xr_agreement.read_spans(DATA / "conll" / "iob2", labels=universe)
    assert list(table.label_id.values) == ["ORG", "MISC", "PER", "LOC"]


def test_export_where_nobody_made_a_decision_is_refused(tmp_path):
    # a CoNLL-U file (its last column "_" everywhere: no NER tags) and a brat project whose
    # .ann files are all empty, read with empty_list="missing": no (document, annotator) is
    # annotated, so there is nothing to measure; an error, as the JSON readers give, not a
    # table on which every measure is NaN
    folder = tmp_path / "conllu"
    folder.mkdir()
    for who in ("a", "b"):
        (folder / f"{who}.conllu").write_text(
            "# sent_id = 1\n1\tAda\tAda\tPROPN\tNNP\t_\t2\tnsubj\t_\t_\n"
            "2\tsleeps\tsleep\tVERB\tVBZ\t_\t0\troot\t_\t_\n\n")
    with pytest.raises(AnnotationFileError, match="no document is annotated"):
        conll.read(folder)
    root = tmp_path / "brat"
    for who in ("a", "b"):
        (root / who).mkdir(parents=True)
        (root / who / "d.ann").write_text("")
    (root / "d.txt").write_text("Ada sleeps")
    with pytest.raises(AnnotationFileError, match="no document is annotated"):
        brat.read(root, empty_list="missing")
    assert brat.read(root).annotated.values.all()  # the default: read, nothing marked
