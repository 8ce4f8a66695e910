"""Annotate an NER project on a Label Studio 1.23.2 server through its REST API, as three
users, and save the server's own exports (JSON, JSON-min, CSV, CONLL2003)."""
import json, sys, urllib.request
# the throwaway local server, started with LABEL_STUDIO_USER_TOKEN set to this value
BASE = "http://127.0.0.1:8093"; TOKEN = "0123456789abcdef0123456789abcdef01234567"
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
  <Labels name="label" toName="text">
    <Label value="PER"/>
    <Label value="ORG"/>
    <Label value="LOC"/>
    <Label value="MISC"/>
  </Labels>
  <Text name="text" value="$text"/>
</View>"""
TEXTS = ["Ada Lovelace met Charles Babbage at the University of London in 1833.",
         "The United Nations opened an office in Nairobi.",
         "Grace Hopper worked for the US Navy.",
         "No entities here at all.",
         "Café Ümlaut in Zürich hired Marie Curie.",
         "Nobody annotated this task."]

users = {u["email"]: u["id"] for u in call("GET", "/api/users/")}
for name in ("alice", "bob", "carol"):
    email = f"{name}@example.com"
    if email not in users:
        users[email] = call("POST", "/api/users/", {"email": email, "username": name})["id"]
project = call("POST", "/api/projects/", {"title": "NER agreement", "label_config": CONFIG})
pid = project["id"]
call("POST", f"/api/projects/{pid}/import", [{"text": t} for t in TEXTS])
tasks = {t["data"]["text"]: t["id"] for t in call("GET", f"/api/tasks/?project={pid}&page_size=100")["tasks"]}

def region(text, sub, labels, occurrence=0, shift=(0, 0)):
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(sub, start + 1)
    start, end = start + shift[0], start + len(sub) + shift[1]
    return {"from_name": "label", "to_name": "text", "type": "labels",
            "value": {"start": start, "end": end, "text": text[start:end], "labels": labels}}

T = TEXTS
plan = {  # user -> task text -> list of regions, or "cancel"
    "alice": {T[0]: [region(T[0], "Ada Lovelace", ["PER"]), region(T[0], "Charles Babbage", ["PER"]),
                     region(T[0], "University of London", ["ORG"]), region(T[0], "London", ["LOC"])],
              T[1]: [region(T[1], "United Nations", ["ORG"]), region(T[1], "Nairobi", ["LOC"])],
              T[2]: "cancel",
              T[3]: [],
              T[4]: [region(T[4], "Zürich", ["LOC"]), region(T[4], "Marie Curie", ["PER"])]},
    "bob": {T[0]: [region(T[0], "Ada Lovelace", ["PER", "MISC"]),
                   region(T[0], "the University of London", ["ORG"]), region(T[0], "London", ["LOC"])],
            T[1]: [region(T[1], "The United Nations", ["LOC"]), region(T[1], "Nairobi", ["LOC"])],
            T[2]: [region(T[2], "Grace Hopper", ["PER"]), region(T[2], "US Navy", ["ORG"])],
            T[3]: [],
            T[4]: [region(T[4], "Marie Curie", ["PER"]), region(T[4], "Café Ümlaut", ["ORG"])]},
    "carol": {T[0]: [region(T[0], "Ada Lovelace", ["PER"]), region(T[0], "Lovelace", ["PER"]),
                     region(T[0], "University of London", ["ORG"]),
                     region(T[0], "London in 1833", ["MISC"])],
              T[2]: [region(T[2], "Grace Hopper", ["PER"]), region(T[2], "the US Navy", ["ORG"])],
              T[4]: [region(T[4], "Café Ümlaut in Zürich", ["ORG"])]},
}
truth = []
for who, per_task in plan.items():
    uid = users[f"{who}@example.com"]
    for text, regions in per_task.items():
        body = {"completed_by": uid, "lead_time": 1.0}
        if regions == "cancel":
            body.update(result=[], was_cancelled=True)
        else:
            body.update(result=regions, was_cancelled=False)
        made = call("POST", f"/api/tasks/{tasks[text]}/annotations/", body)
        assert made["completed_by"] == uid, made
        if regions != "cancel":
            for r in regions:
                for lab in r["value"]["labels"]:
                    truth.append([tasks[text], f"{who}@example.com", r["value"]["start"], r["value"]["end"], lab])
# a model's prediction (not an annotation) and a draft (not submitted)
call("POST", "/api/predictions/", {"task": tasks[T[3]], "model_version": "m1",
                                   "result": [region(T[3], "entities", ["MISC"])]})
try:
    call("POST", f"/api/tasks/{tasks[T[1]]}/drafts", {"result": [region(T[1], "Nairobi", ["ORG"])], "lead_time": 1.0})
except Exception as error:
    print("draft:", error)
for kind, name in (("JSON", "json_all_tasks.json"), ("JSON_MIN", "json_min_all_tasks.json"),
                   ("CSV", "csv_all_tasks.csv"), ("CONLL2003", "ner.conll")):
    data = call("GET", f"/api/projects/{pid}/export?exportType={kind}&download_all_tasks=true", raw=True)
    open(f"{OUT}/{name}", "wb").write(data)
open(f"{OUT}/config.xml", "w").write(CONFIG + "\n")
json.dump({"tasks": tasks, "users": users, "spans": truth}, open(f"{OUT}/annotated.json", "w"),
          indent=1)
print(pid, tasks, users, len(truth))
