#!/usr/bin/env bash
# Carafe's tc on the engine beside gapbs's tc, interleaved, with each command's peak RSS
# (docs/benchmarks.md, "Triangles, LCC and CDLP on the engine by reading neighbourhoods").
#   docs/measure/triangles_sitting.sh GAPBS_DIR [ROUNDS]
# GAPBS_DIR holds a built gapbs (tc, converter); the symmetric .sg comes from
# `bin/carafe bench --kernels tc -g livejournal-synthetic --gapbs GAPBS_DIR` run once before.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
gapbs=${1:?usage: docs/measure/triangles_sitting.sh GAPBS_DIR [ROUNDS]}
rounds=${2:-2}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/carafe/graphs/gapbs
sg=$(ls "$cache"/generated-rmat-4847571-68993773-1-*-symmetric.sg | head -n 1)
out=$(mktemp -d)
for round in $(seq 1 "$rounds"); do
    /usr/bin/time -v bin/carafe tc --graph livejournal-synthetic > "$out/carafe-$round.out" 2> "$out/carafe-$round.err"
    OMP_NUM_THREADS=2 /usr/bin/time -v "$gapbs/tc" -f "$sg" -n 1 > "$out/gapbs-$round.out" 2> "$out/gapbs-$round.err"
    echo "round $round: carafe $(grep -o 'compute [0-9.]* s' "$out/carafe-$round.out"), peak $(grep -o 'Maximum resident set size (kbytes): [0-9]*' "$out/carafe-$round.err" | grep -o '[0-9]*$') kB;" \
        "gapbs $(grep 'Trial Time' "$out/gapbs-$round.out" | grep -o '[0-9.]*$') s, peak $(grep -o 'Maximum resident set size (kbytes): [0-9]*' "$out/gapbs-$round.err" | grep -o '[0-9]*$') kB"
done
echo "outputs in $out"
