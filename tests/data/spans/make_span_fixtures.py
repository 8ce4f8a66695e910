"""Writes the span-export fixtures in this folder (run once; the files are committed), each
shaped like its tool's documented export. Independent of xr_agreement: plain Python.

- prodigy/ner_manual.jsonl: ``prodigy db-out`` of a multi-user ``ner.manual`` session
  (https://prodi.gy/docs/api-interfaces#ner_manual: text, tokens with start/end/id/ws,
  spans with start/end/token_start/token_end (inclusive)/label, answer, _input_hash,
  _task_hash, _view_id, _session_id, _annotator_id, _timestamp);
- prodigy/spans_manual.jsonl: ``spans.manual`` (overlapping spans allowed);
- brat/project/: one folder per annotator, DOC.txt + DOC.ann
  (https://brat.nlplab.org/standoff.html); a discontinuous entity, R / A / N / # lines;
- conll/iob2/, conll/bioes/: one CoNLL-2003 style file per annotator (token POS chunk NER,
  -DOCSTART- -X- -X- O, blank lines between sentences); conll/columns.tsv: a header naming
  the annotators' tag columns; conll/iob1/: the original CoNLL-2003 IOB1 tags.
"""

import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))

TEXTS = {
    "news1": "Annotators from the United Nations met in Nairobi on Monday.",
    "news2": "Barack Obama visited New York City.",
    "news3": "Nothing to see here.",
}


def tokens(text):
    out = []
    for i, m in enumerate(re.finditer(r"\w+|[^\w\s]", text)):
        out.append({"text": m.group(), "start": m.start(), "end": m.end(), "id": i,
                    "ws": m.end() < len(text) and text[m.end()] == " "})
    return out


def span(text, toks, phrase, label, occurrence=0):
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(phrase, start + 1)
    end = start + len(phrase)
    first = next(t["id"] for t in toks if t["start"] == start)
    last = next(t["id"] for t in toks if t["end"] == end)
    return {"start": start, "end": end, "token_start": first, "token_end": last,
            "label": label}


def prodigy(view, dataset, plan, name):
    rows, stamp = [], 1700000000
    for number, (doc, who, answer, marks) in enumerate(plan):
        text = TEXTS[doc]
        toks = tokens(text)
        rows.append({
            "text": text, "_input_hash": 1000 + list(TEXTS).index(doc) * 7919,
            "_task_hash": -500 - number, "tokens": toks,
            "spans": [span(text, toks, *m) for m in marks], "_view_id": view,
            "answer": answer, "_timestamp": stamp + number,
            "_annotator_id": f"{dataset}-{who}", "_session_id": f"{dataset}-{who}"})
    with open(os.path.join(HERE, "prodigy", name), "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


def brat():
    root = os.path.join(HERE, "brat", "project")
    anns = {
        ("alice", "news1"): "T1\tORG 16 34\tthe United Nations\nT2\tLOC 42 49\tNairobi\n"
                            "T3\tDATE 53 59\tMonday\nR1\tLocated Arg1:T1 Arg2:T2\t\n"
                            "#1\tAnnotatorNotes T1\tcheck the article\n",
        ("bob", "news1"): "T1\tORG 20 34\tUnited Nations\nT2\tLOC 42 49\tNairobi\n"
                          "A1\tNegated T2\nN1\tReference T2 Wikipedia:1961\tNairobi\n",
        ("carol", "news1"): "",
        ("alice", "news2"): "T1\tPER 0 12\tBarack Obama\nT2\tLOC 21 34\tNew York City\n",
        ("carol", "news2"): "T1\tPER 7 12\tObama\nT2\tLOC 21 24;30 34\tNew City\n"
                            "T3\tLOC 21 34\tNew York City\n",
    }
    for who in ("alice", "bob", "carol"):
        os.makedirs(os.path.join(root, who), exist_ok=True)
        for doc in ("news1", "news2"):
            with open(os.path.join(root, who, doc + ".txt"), "w", encoding="utf-8",
                      newline="") as f:
                f.write(TEXTS[doc])
            if (who, doc) in anns:
                with open(os.path.join(root, who, doc + ".ann"), "w", encoding="utf-8",
                          newline="") as f:
                    f.write(anns[who, doc])


SENTENCES = [  # (tokens, POS, chunk) of two -DOCSTART- documents, one and two sentences
    [[("EU", "NNP", "B-NP"), ("rejects", "VBZ", "B-VP"), ("German", "JJ", "B-NP"),
      ("call", "NN", "I-NP"), (".", ".", "O")]],
    [[("Peter", "NNP", "B-NP"), ("Blackburn", "NNP", "I-NP")],
     [("BRUSSELS", "NNP", "B-NP"), ("1996-08-22", "CD", "I-NP")]],
]
TAGS = {  # per annotator, per document, the NER column
    "iob2": {"alice": [["B-ORG", "O", "B-MISC", "O", "O"], ["B-PER", "I-PER", "B-LOC", "O"]],
             "bob": [["B-ORG", "O", "B-MISC", "I-MISC", "O"], ["B-PER", "B-PER", "B-LOC", "O"]]},
    "bioes": {"alice": [["S-ORG", "O", "S-MISC", "O", "O"], ["B-PER", "E-PER", "S-LOC", "O"]],
              "bob": [["S-ORG", "O", "B-MISC", "E-MISC", "O"], ["O", "O", "S-LOC", "O"]]},
    "iob1": {"alice": [["I-ORG", "O", "I-MISC", "O", "O"], ["I-PER", "I-PER", "I-LOC", "O"]],
             "bob": [["I-ORG", "O", "I-MISC", "I-MISC", "O"], ["I-PER", "B-PER", "I-LOC", "O"]]},
}


def conll():
    for scheme, per in TAGS.items():
        os.makedirs(os.path.join(HERE, "conll", scheme), exist_ok=True)
        for who, tags in per.items():
            lines = []
            for document, doc_tags in zip(SENTENCES, tags):
                lines += ["-DOCSTART- -X- -X- O", ""]
                flat = iter(doc_tags)
                for sentence in document:
                    lines += [f"{t} {p} {c} {next(flat)}" for t, p, c in sentence] + [""]
            with open(os.path.join(HERE, "conll", scheme, who + ".conll"), "w",
                      encoding="utf-8") as f:
                f.write("\n".join(lines))
    rows = ["token\talice\tbob\tcarol",
            "Barack\tB-PER\tB-PER\t_", "Obama\tI-PER\tI-PER\t_", "visited\tO\tO\t_",
            "New\tB-LOC\tB-LOC\t_", "York\tI-LOC\tB-LOC\t_", "City\tI-LOC\tO\t_", ".\tO\tO\t_",
            "", "Nothing\tO\tO\tO", "here\tO\tO\tO", ".\tO\tO\tO", ""]
    with open(os.path.join(HERE, "conll", "columns.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(rows))


def main():
    for folder in ("prodigy", "brat", "conll"):
        os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    prodigy("ner_manual", "ner_news", [
        ("news1", "alice", "accept", [("the United Nations", "ORG"), ("Nairobi", "LOC"),
                                      ("Monday", "DATE")]),
        ("news1", "bob", "accept", [("United Nations", "ORG"), ("Nairobi", "LOC")]),
        ("news1", "carol", "ignore", []),
        ("news2", "alice", "accept", [("Barack Obama", "PER"), ("New York City", "LOC")]),
        ("news2", "bob", "reject", []),
        ("news2", "carol", "accept", [("Obama", "PER"), ("New York", "LOC")]),
        ("news3", "alice", "accept", []),
        ("news3", "bob", "accept", []),
        ("news3", "carol", "ignore", []),
    ], "ner_manual.jsonl")
    prodigy("spans_manual", "spans_news", [
        ("news2", "alice", "accept", [("Barack Obama", "PER"), ("Obama", "SURNAME"),
                                      ("New York City", "LOC"), ("New York", "LOC")]),
        ("news2", "bob", "accept", [("Barack Obama", "PER"), ("York City", "LOC")]),
    ], "spans_manual.jsonl")
    brat()
    conll()


if __name__ == "__main__":
    main()
