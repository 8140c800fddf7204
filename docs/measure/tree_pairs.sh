#!/usr/bin/env bash
# One carafe command in two trees, interleaved (the order alternates each pair): compute and
# total seconds from its JSON, wall time and peak RSS from /usr/bin/time -v.
#   docs/measure/tree_pairs.sh OTHER_TREE PAIRS CARAFE_ARGS...
# e.g. git worktree add /tmp/before HEAD~3, then
#   docs/measure/tree_pairs.sh /tmp/before 4 pagerank --algorithm pregel --graph livejournal-synthetic --iterations 32
set -euo pipefail
this=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
other=${1:?usage: docs/measure/tree_pairs.sh OTHER_TREE PAIRS CARAFE_ARGS...}
pairs=${2:?usage: docs/measure/tree_pairs.sh OTHER_TREE PAIRS CARAFE_ARGS...}
shift 2
out=$(mktemp -d)
for i in $(seq 1 "$pairs"); do
    if [ $((i % 2)) = 1 ]; then order="other this"; else order="this other"; fi
    for side in $order; do
        if [ "$side" = other ]; then tree=$other; else tree=$this; fi
        /usr/bin/time -v "$tree/bin/carafe" "$@" --format json > "$out/$side.json" 2> "$out/$side.err"
        python3 - "$out" "$side" "$i" <<'PY'
import json, re, sys
out, side, pair = sys.argv[1:]
text = open(f"{out}/{side}.json").read()
seconds = json.loads(text[text.index("{"):])["seconds"]
err = open(f"{out}/{side}.err").read()
peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", err).group(1)
print(f"{side:5} pair {pair}: setup {seconds.get('setup', 0):.3f} s, compute {seconds.get('compute', 0):.3f} s, total {seconds.get('total', 0):.3f} s,"
      f" wall {wall}, peak {peak * 1024 / 1e9:.2f} GB", flush=True)
PY
    done
done
