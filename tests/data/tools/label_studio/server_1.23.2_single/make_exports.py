"""Annotate a single-choice Label Studio 1.23.2 project through its REST API, as three users,
and save the server's own exports (JSON, JSON-min, CSV, TSV; a snapshot with user details as
JSON and its JSON-min conversion). Run against a fresh server (the admin is user 1, the
project gets id 1), with the output folder as argument.

The project: ``<Choices name="sentiment">`` with no ``choice`` attribute (Label Studio's
default, single) on six tasks. Users admin (id 1), alice (2), bob (3). The plan:

    task  text                                   admin           alice              bob
    1     The service was quick and friendly.    positive        positive           positive
    2     The package arrived late and damaged.  negative        negative           neutral
    3     The store opens at nine.               neutral         skipped            neutral
                                                                 (was_cancelled)
    4     I expected more, but it works.         neutral         negative, then     submitted,
                                                                 positive (two      empty result
                                                                 annotations; the
                                                                 latest wins)
    5     Best purchase this year.               a draft only    positive           -
                                                 (negative)
    6     Nobody annotated this task.            nobody annotated it (a model's prediction,
                                                 positive, is not an annotation)

A second project (id 2, the same config), where every annotation holds one choice, exported as
JSON, JSON-min and CSV (``one_choice_each_*``): what a reader sees without the config when
nothing but single choices is in the file.

    task  text                                   admin           alice              bob
    7     Great value for money.                 positive        positive           positive
    8     The screen cracked within a week.      negative        negative           neutral
    9     It is a phone.                         neutral         positive           neutral
"""
import json, sys, time, urllib.error, urllib.request
# the throwaway local server, started with LABEL_STUDIO_USER_TOKEN set to this value
BASE = "http://127.0.0.1:8094"; TOKEN = "0123456789abcdef0123456789abcdef01234567"
OUT = sys.argv[1]


def call(method, path, body=None, raw=False):
    req = urllib.request.Request(BASE + path, method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": f"Token {TOKEN}",
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        data = r.read()
        return data if raw else json.loads(data or b"null")


CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text">
    <Choice value="positive"/>
    <Choice value="negative"/>
    <Choice value="neutral"/>
  </Choices>
</View>"""
TEXTS = ["The service was quick and friendly.",
         "The package arrived late and damaged.",
         "The store opens at nine.",
         "I expected more, but it works.",
         "Best purchase this year.",
         "Nobody annotated this task."]

users = {u["email"]: u["id"] for u in call("GET", "/api/users/")}
for name in ("alice", "bob"):
    email = f"{name}@example.com"
    if email not in users:
        users[email] = call("POST", "/api/users/", {"email": email, "username": name})["id"]
project = call("POST", "/api/projects/", {"title": "Sentiment (single choice)",
                                          "label_config": CONFIG})
pid = project["id"]
call("POST", f"/api/projects/{pid}/import", [{"text": t} for t in TEXTS])
tasks = {t["data"]["text"]: t["id"]
         for t in call("GET", f"/api/tasks/?project={pid}&page_size=100")["tasks"]}


def choice(value):
    return [{"from_name": "sentiment", "to_name": "text", "type": "choices",
             "value": {"choices": [value]}}]


T = TEXTS
# (user, task text, what was submitted): a choice, "cancel" (skipped) or "empty" (submitted
# with an empty result); posted in this order, so alice's second annotation of T[3] is the
# later one
PLAN = [("admin", T[0], "positive"), ("alice", T[0], "positive"), ("bob", T[0], "positive"),
        ("admin", T[1], "negative"), ("alice", T[1], "negative"), ("bob", T[1], "neutral"),
        ("admin", T[2], "neutral"), ("alice", T[2], "cancel"), ("bob", T[2], "neutral"),
        ("admin", T[3], "neutral"), ("alice", T[3], "negative"), ("bob", T[3], "empty"),
        ("alice", T[4], "positive"),
        ("alice", T[3], "positive")]
posted = []
for who, text, what in PLAN:
    uid = users[f"{who}@example.com"]
    body = {"completed_by": uid, "lead_time": 1.0, "was_cancelled": what == "cancel",
            "result": [] if what in ("cancel", "empty") else choice(what)}
    made = call("POST", f"/api/tasks/{tasks[text]}/annotations/", body)
    assert made["completed_by"] == uid, made
    posted.append({"task": tasks[text], "user": uid, "annotation": made["id"], "what": what,
                   "created_at": made["created_at"]})
    time.sleep(0.05)  # distinct timestamps
# a draft (not submitted) by the admin, whose token this is, and a model's prediction
draft = call("POST", f"/api/tasks/{tasks[T[4]]}/drafts",
             {"result": choice("negative"), "lead_time": 1.0})
call("POST", "/api/predictions/", {"task": tasks[T[5]], "model_version": "m1",
                                   "result": choice("positive")})

for kind, name in (("JSON", "json_all_tasks.json"), ("JSON_MIN", "json_min_all_tasks.json"),
                   ("CSV", "csv_all_tasks.csv"), ("TSV", "tsv_all_tasks.tsv")):
    data = call("GET", f"/api/projects/{pid}/export?exportType={kind}&download_all_tasks=true",
                raw=True)
    open(f"{OUT}/{name}", "wb").write(data)

# the snapshot export with user details: completed_by as {"id", "email", ...}
snap = call("POST", f"/api/projects/{pid}/exports/", {
    "title": "details", "serialization_options": {
        "annotations__completed_by": {"only_id": False}, "drafts": {"only_id": False},
        "predictions": {"only_id": False}}, "task_filter_options": {"annotated": None}})
for _ in range(60):
    status = call("GET", f"/api/projects/{pid}/exports/{snap['id']}")["status"]
    if status == "completed":
        break
    time.sleep(1)
assert status == "completed", status
for kind, name in (("JSON", "snapshot_details.json"), ("JSON_MIN", "snapshot_details_min.json")):
    if kind != "JSON":
        call("POST", f"/api/projects/{pid}/exports/{snap['id']}/convert", {"export_type": kind})
        for _ in range(60):
            try:
                data = call("GET", f"/api/projects/{pid}/exports/{snap['id']}/download"
                                   f"?exportType={kind}", raw=True)
                break
            except urllib.error.HTTPError:
                time.sleep(1)
    else:
        data = call("GET", f"/api/projects/{pid}/exports/{snap['id']}/download?exportType={kind}",
                    raw=True)
    open(f"{OUT}/{name}", "wb").write(data)

# the second project: every annotation one choice
second = call("POST", "/api/projects/", {"title": "Sentiment (one choice each)",
                                         "label_config": CONFIG})["id"]
TEXTS2 = ["Great value for money.", "The screen cracked within a week.", "It is a phone."]
call("POST", f"/api/projects/{second}/import", [{"text": t} for t in TEXTS2])
tasks2 = {t["data"]["text"]: t["id"]
          for t in call("GET", f"/api/tasks/?project={second}&page_size=100")["tasks"]}
for text, chosen in zip(TEXTS2, [("positive", "positive", "positive"),
                                 ("negative", "negative", "neutral"),
                                 ("neutral", "positive", "neutral")]):
    for who, value in zip(("admin", "alice", "bob"), chosen):
        uid = users[f"{who}@example.com"]
        made = call("POST", f"/api/tasks/{tasks2[text]}/annotations/",
                    {"completed_by": uid, "lead_time": 1.0, "was_cancelled": False,
                     "result": choice(value)})
        assert made["completed_by"] == uid, made
        posted.append({"task": tasks2[text], "user": uid, "annotation": made["id"],
                       "what": value, "created_at": made["created_at"]})
for kind, name in (("JSON", "one_choice_each_json.json"),
                   ("JSON_MIN", "one_choice_each_json_min.json"),
                   ("CSV", "one_choice_each_csv.csv")):
    data = call("GET", f"/api/projects/{second}/export?exportType={kind}"
                       "&download_all_tasks=true", raw=True)
    open(f"{OUT}/{name}", "wb").write(data)

open(f"{OUT}/config.xml", "w").write(CONFIG + "\n")
json.dump({"projects": [pid, second], "tasks": {**tasks, **tasks2}, "users": users,
           "posted": posted,
           "draft": {"task": tasks[T[4]], "id": draft.get("id") if isinstance(draft, dict)
                     else None}},
          open(f"{OUT}/annotated.json", "w"), indent=1)
print(pid, second, tasks, tasks2, users)
