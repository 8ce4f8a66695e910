"""Writes the doccano span fixtures of this folder, shaped as doccano 1.8's export writes
sequence labelling (compact JSON lines, ``"label": [[start, end, "TYPE"], ...]``,
``"Comments": []``; one ``<username>.jsonl`` per member, zipped; an empty file for a member
who confirmed nothing) and relation projects (``entities`` / ``relations``). What each
annotator marked is in README.md. The files are written next to this script, from wherever it
is run: ``python make_doccano_span_fixtures.py``."""
import json
import zipfile
from pathlib import Path

HERE = Path(__file__).parent

TEXTS = {1: "Ada Lovelace met Charles Babbage in London.",
         2: "The United Nations opened an office in Nairobi.",
         3: "Nothing to see here.",
         4: "Marie Curie and Pierre Curie won the Nobel Prize in 1903."}


def at(doc, sub, label, occurrence=0):
    text, start = TEXTS[doc], -1
    for _ in range(occurrence + 1):
        start = text.index(sub, start + 1)
    return [start, start + len(sub), label]


MARKED = {  # member -> example -> spans; an example left out: not confirmed (approved only)
    "alice": {1: [at(1, "Ada Lovelace", "PER"), at(1, "Charles Babbage", "PER"),
                  at(1, "London", "LOC")],
              2: [at(2, "United Nations", "ORG"), at(2, "Nairobi", "LOC")],
              3: [],
              4: [at(4, "Marie Curie", "PER"), at(4, "Pierre Curie", "PER"),
                  at(4, "Nobel Prize", "MISC")]},
    "bob": {1: [at(1, "Ada Lovelace", "PER"), at(1, "Ada", "PER"), at(1, "London", "LOC")],
            2: [at(2, "The United Nations", "LOC"), at(2, "Nairobi", "LOC")],
            3: [],
            4: [at(4, "Marie Curie and Pierre Curie", "PER"), at(4, "Nobel Prize", "MISC"),
                at(4, " in 1903", "MISC")]},
    "carol": {1: [at(1, "Ada Lovelace", "PER"), at(1, "Lovelace", "MISC"),
                  at(1, "Charles Babbage in London", "MISC")],
              4: [at(4, "Marie Curie", "PER")]},
}


def line(doc, spans, **extra):
    return json.dumps({"id": doc, "text": TEXTS[doc], **extra, "Comments": []},
                      separators=(",", ":"), ensure_ascii=False)


def write_zip(name, members):
    with zipfile.ZipFile(HERE / name, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, text in members.items():
            archive.writestr(member, text)


# export approved only: each member's confirmed examples; the admin confirmed none
approved = {f"{who}.jsonl": "".join(line(d, s, label=s) + "\n" for d, s in marked.items())
            for who, marked in MARKED.items()}
write_zip("approved_jsonl.zip", {**approved, "admin.jsonl": ""})

# full export: every example in every member's file, [] where the member did nothing
full = {f"{who}.jsonl": "".join(line(d, marked.get(d, []), label=marked.get(d, [])) + "\n"
                                for d in TEXTS)
        for who, marked in {**MARKED, "admin": {}}.items()}
write_zip("full_jsonl.zip", full)

# a relation project: entities objects with ids, relations between them
relation_members = {}
next_id = 1
for who in ("alice", "bob"):
    out = []
    for doc, spans in MARKED[who].items():
        entities = []
        for start, end, label in spans:
            entities.append({"id": next_id, "label": label, "start_offset": start,
                             "end_offset": end})
            next_id += 1
        relations = ([{"id": next_id, "from_id": entities[0]["id"],
                       "to_id": entities[1]["id"], "type": "met"}]
                     if doc == 1 and len(entities) > 1 else [])
        next_id += 1
        out.append(line(doc, spans, entities=entities, relations=relations) + "\n")
    relation_members[f"{who}.jsonl"] = "".join(out)
write_zip("relations_jsonl.zip", relation_members)
