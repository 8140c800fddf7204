#!/usr/bin/env bash
# The engine's peak memory at LiveJournal scale beside gapbs's tc, interleaved, each command's
# peak RSS from /usr/bin/time -v (docs/benchmarks.md, "Local memory that holds what it maps").
#   docs/measure/memory_sitting.sh GAPBS_DIR [ROUNDS]
# GAPBS_DIR holds a built gapbs (tc); the symmetric .sg comes from
# `bin/carafe bench --kernels tc -g livejournal-synthetic --gapbs GAPBS_DIR` run once before.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
gapbs=${1:?usage: docs/measure/memory_sitting.sh GAPBS_DIR [ROUNDS]}
rounds=${2:-1}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/carafe/graphs/gapbs
sg=$(ls "$cache"/generated-rmat-4847571-68993773-1-*-symmetric.sg | head -n 1)
out=$(mktemp -d)
peak() { grep -o 'Maximum resident set size (kbytes): [0-9]*' "$1" | grep -o '[0-9]*$'; }
run() { # name, command...
    local name=$1; shift
    /usr/bin/time -v "$@" > "$out/$name.out" 2> "$out/$name.err"
    echo "$name: peak $(peak "$out/$name.err") kB; $(grep -o -e 'compute [0-9.]* s' -e 'Trial Time: *[0-9.]*' "$out/$name.out" | head -n 1)"
}
for round in $(seq 1 "$rounds"); do
    echo "round $round"
    run "gapbs-tc-$round" env OMP_NUM_THREADS=2 "$gapbs/tc" -f "$sg" -n 1
    run "carafe-tc-$round" bin/carafe tc --graph livejournal-synthetic
    run "carafe-lcc-$round" bin/carafe lcc --graph livejournal-synthetic
    run "carafe-cdlp-$round" bin/carafe cdlp --graph livejournal-synthetic --iterations 10
    run "carafe-pagerank-$round" bin/carafe pagerank --graph livejournal-synthetic --iterations 5
done
echo "outputs in $out"
