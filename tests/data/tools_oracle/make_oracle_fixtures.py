"""Write the Label Studio, doccano and malformed fixtures of this folder.

Run from this folder: ``python make_oracle_fixtures.py``. The other fixtures (Prodigy, Argilla,
MTurk, crowd-kit, GoEmotions) are plain text files written by hand. Each tool's layout is
copied from its documentation or its exporter's source (see README.md); the decisions in
the specs below are written out again, independently, in tests/test_tools_oracle.py.
Nothing here imports xr_agreement.
"""

import copy
import json
import os
import shutil
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------------------------------
# Label Studio JSON export (Export -> JSON): an array of tasks, each with annotations[]
# --------------------------------------------------------------------------------------

USERS = {
    1: {"id": 1, "email": "ana@lab.example", "first_name": "Ana", "last_name": "Silva"},
    2: {"id": 2, "email": "ben@lab.example", "first_name": "Ben", "last_name": "Okafor"},
    5: {"id": 5, "email": "chen@lab.example", "first_name": "", "last_name": ""},
}


def ls_annotation(ann_id, task_id, project, user, results, cancelled=False, obj_user=False,
                  stamp="2024-06-11T14:02:33.50{:04d}Z"):
    """One annotation as Label Studio's export serializer writes it."""
    completed_by = USERS[user] if obj_user else user
    return {
        "id": ann_id,
        "completed_by": completed_by,
        "result": results,
        "was_cancelled": cancelled,
        "ground_truth": False,
        "created_at": stamp.format(ann_id % 10000),
        "updated_at": stamp.format(ann_id % 10000),
        "draft_created_at": None,
        "lead_time": round(3.5 + (ann_id % 7) * 1.25, 3),
        "prediction": {},
        "result_count": 0,
        "unique_id": f"9d1e2f3a-4b5c-4d6e-8f70-{ann_id:012d}",
        "import_id": None,
        "last_action": None,
        "task": task_id,
        "project": project,
        "updated_by": user,
        "parent_prediction": None,
        "parent_annotation": None,
        "last_created_by": None,
    }


def ls_task(task_id, project, text, annotations, inner_id, predictions=()):
    cancelled = sum(a["was_cancelled"] for a in annotations)
    return {
        "id": task_id,
        "annotations": annotations,
        "file_upload": "7c2d9e10-batch.json",
        "drafts": [],
        "predictions": list(predictions),
        "data": {"text": text},
        "meta": {},
        "created_at": "2024-06-10T08:00:00.000000Z",
        "updated_at": "2024-06-11T15:00:00.000000Z",
        "inner_id": inner_id,
        "total_annotations": len(annotations) - cancelled,
        "cancelled_annotations": cancelled,
        "total_predictions": len(predictions),
        "comment_count": 0,
        "unresolved_comment_count": 0,
        "last_comment_updated_at": None,
        "project": project,
        "updated_by": None,
        "comment_authors": [],
    }


def choices(from_name, values, region):
    return {"value": {"choices": list(values)}, "id": region, "from_name": from_name,
            "to_name": "text", "type": "choices", "origin": "manual"}


def taxonomy(paths, region):
    return {"value": {"taxonomy": [list(p) for p in paths]}, "id": region,
            "from_name": "taxonomy", "to_name": "text", "type": "taxonomy", "origin": "manual"}


def write_json(name, obj, indent=None):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=indent)
        f.write("\n")


def ls_taxonomy_tasks():
    a = ls_annotation
    tasks = [
        ls_task(201, 31, "Methanogens thrive in the anoxic sediment of the lake.", [
            a(2001, 201, 31, 1, [taxonomy([["Bacteria"]], "tx01")], obj_user=True),
            a(2002, 201, 31, 2, [taxonomy([["Bacteria"]], "tx02")], obj_user=True),
            a(2003, 201, 31, 5, [taxonomy([["Bacteria"], ["Archaea"]], "tx03")], obj_user=True),
        ], 1),
        ls_task(202, 31, "The opossum and the hiker shared the trail at dusk.", [
            a(2004, 202, 31, 1, [taxonomy([["Eukarya", "Human"]], "tx04")], obj_user=True),
            a(2005, 202, 31, 2, [taxonomy([["Eukarya", "Human"], ["Eukarya", "Opossum"]],
                                          "tx05")], obj_user=True),
            # chen picked a path, then skipped the task: still no decision
            a(2006, 202, 31, 5, [taxonomy([["Eukarya", "Human"]], "tx06")], cancelled=True,
              obj_user=True),
        ], 2),
        ls_task(203, 31, "Hot springs host extremophiles unlike anything else.", [
            a(2007, 203, 31, 1, [taxonomy([["Archaea"]], "tx07")], obj_user=True),
            a(2008, 203, 31, 2, [], obj_user=True),
            a(2009, 203, 31, 5, [taxonomy([["Archaea"]], "tx09")], obj_user=True),
        ], 3),
        ls_task(204, 31, "Marsupials carry their young in a pouch.", [
            a(2010, 204, 31, 1, [taxonomy([["Eukarya"]], "tx10")], obj_user=True),
            a(2011, 204, 31, 2, [taxonomy([["Eukarya", "Opossum"]], "tx11")], obj_user=True),
            a(2012, 204, 31, 5, [taxonomy([["Eukarya", "Opossum"]], "tx12")], obj_user=True),
        ], 4),
    ]
    return tasks


def ls_two_control_tasks():
    a = ls_annotation
    s = lambda v, r: choices("sentiment", v, r)  # noqa: E731
    t = lambda v, r: choices("topic", v, r)  # noqa: E731
    return [
        ls_task(301, 44, "Ticket prices for the final doubled overnight.", [
            a(3001, 301, 44, 4, [s(["Positive"], "s01"), t(["Sports", "Economy"], "t01")]),
            a(3002, 301, 44, 9, [s(["Positive"], "s02"), t(["Sports"], "t02")]),
        ], 1),
        ls_task(302, 44, "The minister resigned after the leak.", [
            a(3003, 302, 44, 4, [s(["Negative"], "s03")]),
            a(3004, 302, 44, 9, [s(["Negative"], "s04"), t(["Politics"], "t04")]),
        ], 2),
        ls_task(303, 44, "Election turnout hit a record low.", [
            a(3005, 303, 44, 4, [t(["Politics"], "t05")]),
            a(3006, 303, 44, 9, [], cancelled=True),
        ], 3),
        ls_task(304, 44, "Retail sales rose two percent in May.", [
            a(3007, 304, 44, 4, [t(["Economy"], "t07")]),
            a(3008, 304, 44, 9, [s(["Neutral"], "s08"), t(["Economy"], "t08")]),
        ], 4),
    ]


def json_min(tasks, control):
    """Export -> JSON-min, following label_studio_converter.Converter.convert_to_json_min:
    one record per annotation that was not cancelled (newest first within a task); the
    control's value by utils.prettify_result: for Choices the choice string when one choice
    was made, else {"choices": [...]}; for other tags (Taxonomy) the list of region values
    with their "type" removed; an annotation without a result for the control has no key
    for it. annotator: get_annotator(int_id=True), the email of a user object, else the int."""
    records = []
    for task in tasks:
        live = [a for a in task["annotations"] if not a["was_cancelled"]]
        for ann in sorted(live, key=lambda a: a["created_at"], reverse=True):
            record = copy.deepcopy(task["data"])
            record["id"] = task["id"]
            regions = [r for r in ann["result"] if r["from_name"] == control]
            if regions:
                values = [r["value"] for r in regions]
                if regions[0]["type"] == "choices":
                    chosen = values[0]["choices"]
                    record[control] = chosen[0] if len(chosen) == 1 else {"choices": chosen}
                else:
                    record[control] = values
            completed_by = ann["completed_by"]
            record["annotator"] = (completed_by.get("email") if isinstance(completed_by, dict)
                                   else completed_by)
            record["annotation_id"] = ann["id"]
            record["created_at"] = ann["created_at"]
            record["updated_at"] = ann["updated_at"]
            record["lead_time"] = ann["lead_time"]
            records.append(record)
    return records


def label_studio():
    write_json("ls_taxonomy.json", ls_taxonomy_tasks())
    write_json("ls_two_controls.json", ls_two_control_tasks())
    write_json("ls_taxonomy_min.json", json_min(ls_taxonomy_tasks(), "taxonomy"), indent=2)
    with open(os.path.join(HERE, "ls_choices.json"), encoding="utf-8") as f:
        tasks = json.load(f)
    write_json("ls_min.json", json_min(tasks, "topic"), indent=2)
    # the same project exported with its unlabeled tasks: one task without annotations,
    # pre-annotated by a model
    unlabeled = ls_task(106, 12, "Storms delay the harvest across the region.", [], 6, [
        {"id": 53,
         "result": [dict(choices("topic", ["Science"], "mdl0003"), origin="prediction")],
         "model_version": "topic-clf-v2", "created_ago": "3 days, 2 hours", "score": 0.52,
         "cluster": None, "neighbors": None, "mislabeling": 0.0,
         "created_at": "2024-04-30T07:00:00.000000Z",
         "updated_at": "2024-04-30T07:00:00.000000Z", "model": None, "model_run": None,
         "task": 106, "project": 12}])
    write_json("ls_choices_with_unlabeled.json", tasks + [unlabeled])
    # user 20 opened tasks 101 and 104 and skipped both: an annotator without any decision
    skipper = copy.deepcopy(tasks)
    for task, ann_id in ((skipper[0], 1015), (skipper[3], 1016)):
        task["annotations"].append(ls_annotation(ann_id, task["id"], 12, 20, [],
                                                 cancelled=True))
        task["cancelled_annotations"] += 1
    write_json("ls_choices_with_skipper.json", skipper)

    # malformed variants of the single-control taxonomy export
    text = json.dumps(ls_taxonomy_tasks())
    with open(os.path.join(HERE, "bad_ls_truncated.json"), "w", encoding="utf-8") as f:
        f.write(text[: len(text) * 2 // 3])
    no_id = ls_taxonomy_tasks()
    del no_id[1]["id"]
    write_json("bad_ls_no_task_id.json", no_id)
    no_result = ls_taxonomy_tasks()
    del no_result[0]["annotations"][1]["result"]
    write_json("bad_ls_no_result.json", no_result)
    anonymous = ls_taxonomy_tasks()
    del anonymous[2]["annotations"][0]["completed_by"]
    write_json("bad_ls_no_annotator.json", anonymous)
    # ana opened task 201 again and submitted a second, different annotation
    twice = ls_taxonomy_tasks()
    twice[0]["annotations"].append(ls_annotation(2013, 201, 31, 1, [taxonomy([["Archaea"]],
                                                                          "tx13")],
                                                 obj_user=True))
    write_json("bad_ls_two_annotations_by_one_user.json", twice)


# --------------------------------------------------------------------------------------
# doccano: Export Dataset -> JSONL / CSV, collaborative annotation off, "Export only
# approved documents" on. backend/data_export/celery_tasks.py writes one file per member
# ("<username>.<ext>") and zips the folder with shutil.make_archive; each row is
# {"id", "text", **meta, "label": sorted labels, "Comments": [...]} written by
# pandas.DataFrame.to_json(orient="records", lines=True) (CSV: to_csv, labels joined "#").
# --------------------------------------------------------------------------------------

DOCCANO_TEXT = {
    17: "App crashes when I rotate the phone.",
    18: "Could you add a dark mode?",
    19: "How do I export my data? The manual does not say.",
    20: "Please support CSV import, it fails on large files.",
    31: "Login button does nothing and a CSV option would help.",
    32: "Where is the settings page?",
    33: "Add keyboard shortcuts please.",
    34: "Why does sync fail with error 500?",
    35: "Crash on startup since the last update.",
}

DOCCANO_JSONL = {
    "alice": [(17, ["bug"]), (18, ["feature"]), (19, ["docs", "question"])],
    "bob": [(17, ["bug", "docs"]), (18, ["question"]), (19, ["question"]), (20, ["feature"])],
    "carol": [(17, ["bug"]), (18, []), (20, ["bug", "feature"])],
}

DOCCANO_CSV = {
    "alice": [(31, ["bug", "feature"]), (32, ["question"]), (33, ["feature"]), (35, ["bug"])],
    "bob": [(31, ["bug"]), (32, []), (33, ["feature"]), (34, ["bug", "question"])],
}


def doccano_zip(name, per_user, ext):
    import pandas as pd

    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "8f14e45f-ceea-4e67-a8a1-0c9b1b7d2e3f")
        os.makedirs(folder)
        for user, rows in per_user.items():
            frame = pd.DataFrame([
                {"id": ex, "text": DOCCANO_TEXT[ex], "source": "forum",
                 "label": sorted(labels), "Comments": []} for ex, labels in rows])
            path = os.path.join(folder, f"{user}.{ext}")
            if ext == "jsonl":
                frame.to_json(path, orient="records", force_ascii=False, lines=True)
            else:
                frame["label"] = frame["label"].apply("#".join)
                frame["Comments"] = frame["Comments"].apply("#".join)
                frame.to_csv(path, index=False, encoding="utf-8")
        archive = shutil.make_archive(folder, "zip", folder)
        shutil.copy(archive, os.path.join(HERE, name))


# doccano 1.5 (backend/api/views/download/repositories.py and writer.py at tag v1.5.5):
# one record per (example, user who labeled it), written to "<username>.jsonl" as
# {"id", "data", "label", **meta}; an example nobody labeled goes to "unknown.jsonl" with
# label [] ("a quick solution", says the source); zipped flat with zipfile.
DOCCANO_15 = {
    "alice": [(41, ["spam"]), (42, ["ham"]), (44, ["spam"])],
    "bob": [(41, ["spam"]), (42, ["spam"]), (43, ["ham"])],
}
DOCCANO_15_TEXT = {41: "WIN A FREE CRUISE, reply now", 42: "Lunch at noon?",
                   43: "Your parcel is waiting, confirm here", 44: "Cheap meds online",
                   45: "See you at the match"}


def doccano_15_zip(name):
    import zipfile

    files = {user: [{"id": ex, "data": DOCCANO_15_TEXT[ex], "label": labels, "lang": "en"}
                    for ex, labels in rows] for user, rows in DOCCANO_15.items()}
    files["unknown"] = [{"id": 45, "data": DOCCANO_15_TEXT[45], "label": []}]
    with zipfile.ZipFile(os.path.join(HERE, name), "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for user, records in files.items():
            zf.writestr(f"{user}.jsonl",
                        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


def doccano():
    doccano_15_zip("doccano_v15.zip")
    doccano_zip("doccano_jsonl.zip", DOCCANO_JSONL, "jsonl")
    doccano_zip("doccano_csv.zip", DOCCANO_CSV, "csv")
    # collaborative annotation on: create_collaborative_dataset writes one "all.jsonl" with
    # everyone's labels merged per example, and no trace of who chose what
    merged = {}
    for rows in DOCCANO_JSONL.values():
        for ex, labels in rows:
            merged.setdefault(ex, set()).update(labels)
    doccano_zip("bad_doccano_collaborative.zip",
                {"all": [(ex, sorted(labels)) for ex, labels in sorted(merged.items())]}, "jsonl")


def argilla_parquet():
    """argilla_v2.jsonl as parquet: the file dataset.to_hub() leaves on the Hub."""
    import pandas as pd

    frame = pd.read_json(os.path.join(HERE, "argilla_v2.jsonl"), lines=True, dtype=False)
    frame.to_parquet(os.path.join(HERE, "argilla_v2.parquet"), index=False)


if __name__ == "__main__":
    label_studio()
    doccano()
    argilla_parquet()
