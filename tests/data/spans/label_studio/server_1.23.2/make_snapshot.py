"""The snapshot export with user details of the project make_exports.py made (run after it,
with the output folder as argument)."""
import json, time, urllib.request, sys
# the throwaway local server, started with LABEL_STUDIO_USER_TOKEN set to this value
BASE = "http://127.0.0.1:8093"; TOKEN = "0123456789abcdef0123456789abcdef01234567"
def call(method, path, body=None, raw=False):
    req = urllib.request.Request(BASE + path, method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": f"Token {TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        data = r.read(); return data if raw else json.loads(data or b"null")
snap = call("POST", "/api/projects/1/exports/", {"title": "details", "serialization_options": {"annotations__completed_by": {"only_id": False}, "drafts": {"only_id": False}, "predictions": {"only_id": False}}, "task_filter_options": {"annotated": None}})
print(snap["id"], snap.get("status"))
for _ in range(30):
    s = call("GET", f"/api/projects/1/exports/{snap['id']}")
    if s["status"] == "completed": break
    time.sleep(1)
print(s["status"])
for kind, name in (("JSON", "snapshot_details.json"), ("JSON_MIN", "snapshot_details_min.json")):
    if kind != "JSON":
        conv = call("POST", f"/api/projects/1/exports/{snap['id']}/convert", {"export_type": kind})
        time.sleep(3)
    data = call("GET", f"/api/projects/1/exports/{snap['id']}/download?exportType={kind}", raw=True)
    open(sys.argv[1] + "/" + name, "wb").write(data)
    print(name, len(data))
