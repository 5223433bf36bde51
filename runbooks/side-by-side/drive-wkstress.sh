#!/bin/sh
# Runs one wkstress task through a WuKongIM in stress mode, as its /stress API does it, and exits:
# start wkstress, add it, start the task, let it send SECONDS once it has begun, stop it, end it.
#   WKSTRESS=<path to the wkstress binary> ./drive-wkstress.sh <task.json> <seconds> [<api, http://127.0.0.1:5001>]
set -eu
: "${WKSTRESS:?set WKSTRESS to the wkstress binary}"
TASK=$1; SECS=$2; API=${3:-http://127.0.0.1:5001}
work=$(mktemp -d); cd "$work"
"$WKSTRESS" -server "$API" > wkstress.log 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -s -m 1 -o /dev/null http://127.0.0.1:9466/v1/stress/report && break; sleep 0.1; done
curl -sf -X POST "$API/stress/add" -d '{"addr":"http://127.0.0.1:9466"}' > /dev/null
no=$(curl -sf "$API/stress/infoList" | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["no"])')
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); t["no"]=sys.argv[2]; print(json.dumps(t))' "$TASK" "$no" > start.json
curl -sf -X POST "$API/stress/start" -d @start.json > /dev/null
report() { curl -sf -X POST "$API/stress/report" -d "{\"no\":\"$no\"}"; }
for _ in $(seq 600); do
  sent=$(report | python3 -c 'import json,sys; print(json.load(sys.stdin).get("send", 0))' 2>/dev/null || echo 0)
  [ "$sent" -gt 0 ] && break
  sleep 0.5
done
sleep "$SECS"
curl -sf -X POST "$API/stress/stop" -d "{\"no\":\"$no\"}" > /dev/null || true
sleep 6 # wkstress pings, waits 4 s and closes its connections
echo "wkstress: $(report)" >&2
