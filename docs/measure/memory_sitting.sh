#!/usr/bin/env bash
# Engine commands at LiveJournal scale beside gapbs's tc, interleaved, each command's time
# and peak RSS from /usr/bin/time -v (docs/measure/notebook.md: "Triangles, LCC and CDLP on the
# engine by reading neighbourhoods", "Local memory that holds what it maps").
#   docs/measure/memory_sitting.sh GAPBS_DIR [ROUNDS] [COMMANDS]
# COMMANDS, in the order run each round (default: "gapbs-tc tc lcc cdlp pagerank"): gapbs-tc,
# and Carafe's tc, lcc, cdlp (10 iterations) and pagerank (5 iterations), 2 workers; for
# issue 28's bound on every engine algorithm also pagerank32 (32 iterations), scc, sssp
# (weights 1-255), sssp-unit, bfs, wcc (hooking) and wcc-lp (label propagation), on the
# engine from vertex 276617. Each line gives the peak in KiB and in bytes per stored edge.
# GAPBS_DIR holds a built gapbs (tc); the symmetric .sg comes from
# `bin/carafe bench --kernels tc -g livejournal-synthetic --gapbs GAPBS_DIR` run once before.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
gapbs=${1:?usage: docs/measure/memory_sitting.sh GAPBS_DIR [ROUNDS] [COMMANDS]}
rounds=${2:-1}
commands=${3:-gapbs-tc tc lcc cdlp pagerank}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/carafe/graphs/gapbs
sg=$(ls "$cache"/generated-rmat-4847571-68993773-1-*-symmetric.sg | head -n 1)
out=$(mktemp -d)
peak() { grep -o 'Maximum resident set size (kbytes): [0-9]*' "$1" | grep -o '[0-9]*$'; }
run() { # name, command...
    local name=$1; shift
    /usr/bin/time -v "$@" > "$out/$name.out" 2> "$out/$name.err"
    local kib; kib=$(peak "$out/$name.err")
    echo "$name: peak $kib KiB, $(awk -v k="$kib" 'BEGIN { printf "%.1f", k * 1024 / 67584977 }') B an edge;" \
        "$(grep -o -e 'compute [0-9.]* s' -e 'Trial Time: *[0-9.]*' "$out/$name.out" "$out/$name.err" | head -n 1 | sed 's/^[^:]*://')"
}
for round in $(seq 1 "$rounds"); do
    echo "round $round"
    for c in $commands; do
        case $c in
            gapbs-tc) run "$c-$round" env OMP_NUM_THREADS=2 "$gapbs/tc" -f "$sg" -n 1 ;;
            tc|lcc) run "$c-$round" bin/carafe "$c" --graph livejournal-synthetic ;;
            cdlp) run "$c-$round" bin/carafe cdlp --graph livejournal-synthetic --iterations 10 ;;
            pagerank) run "$c-$round" bin/carafe pagerank --algorithm pregel --graph livejournal-synthetic --iterations 5 ;;
            pagerank32) run "$c-$round" bin/carafe pagerank --algorithm pregel --graph livejournal-synthetic --iterations 32 ;;
            scc) run "$c-$round" bin/carafe scc --graph livejournal-synthetic ;;
            sssp) run "$c-$round" bin/carafe sssp --graph livejournal-synthetic --algorithm pregel --weights random --source 276617 ;;
            sssp-unit) run "$c-$round" bin/carafe sssp --graph livejournal-synthetic --algorithm pregel --source 276617 ;;
            bfs) run "$c-$round" bin/carafe sssp --graph livejournal-synthetic --algorithm pregel --hops --source 276617 ;;
            wcc) run "$c-$round" bin/carafe wcc --graph livejournal-synthetic --algorithm pregel ;;
            wcc-lp) run "$c-$round" bin/carafe wcc --graph livejournal-synthetic --algorithm pregel-lp ;;
            *) echo "error: unknown command '$c'; choose from gapbs-tc tc lcc cdlp pagerank pagerank32 scc sssp sssp-unit bfs wcc wcc-lp" >&2
               exit 2 ;;
        esac
    done
done
echo "outputs in $out"
