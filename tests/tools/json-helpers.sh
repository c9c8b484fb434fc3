# Shared by tests/e2e/json.sh and json-live.sh (sourced after lib.sh).
# roundtrip NAME FILE [jsonl]: every number token prints back as itself
roundtrip() {
	python3 - "$2" "${3:-}" <<'PY' >"$TMP/rt" 2>&1
import json, sys
bad = []
def f(s):
    if repr(float(s)) != s:
        bad.append(s)
    return float(s)
def i(s):
    if str(int(s)) != s:
        bad.append(s)
    return int(s)
text = open(sys.argv[1]).read()
docs = text.splitlines() if sys.argv[2] else [text]
n = 0
for d in docs:
    json.loads(d, parse_float=f, parse_int=i)
    n += 1
if bad:
    print("not read back as printed:", bad[:5]); sys.exit(1)
if not n:
    print("no JSON"); sys.exit(1)
PY
	rc=$?
	eq "$1: parses, every number reads back as printed" "$rc$(cat "$TMP/rt")" 0
}
