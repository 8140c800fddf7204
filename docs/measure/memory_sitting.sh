#!/usr/bin/env bash
# Engine commands at LiveJournal scale beside gapbs, interleaved, each command's time and peak
# RSS from /usr/bin/time -v (docs/measure/notebook.md: "Triangles, LCC and CDLP on the engine
# by reading neighbourhoods", "Local memory that holds what it maps", "Setup and peaks beside
# gapbs").
#   docs/measure/memory_sitting.sh GAPBS_DIR [ROUNDS] [COMMANDS]
# COMMANDS, in the order run each round (default: "gapbs-tc tc lcc cdlp pagerank"): gapbs's
# tc, and its pr (32 iterations), bfs, sssp (-d 2) and cc, each -n 3, from vertex 276617;
# Carafe's tc, lcc, cdlp (10 iterations) and pagerank (5 iterations), 2 workers; for issue
# 28's bound on every engine algorithm also pagerank32 (32 iterations), scc, sssp (weights
# 1-255), sssp-unit, bfs, wcc (hooking) and wcc-lp (label propagation), on the engine from
# vertex 276617. Each line gives the peak in KiB and in bytes per stored edge, and Carafe's
# setup and compute seconds (from its JSON) or gapbs's trial times.
# GAPBS_DIR holds a built gapbs; its .sg files come from `bin/carafe bench --kernels
# tc,pr,bfs,sssp,wcc -g livejournal-synthetic --gapbs GAPBS_DIR` run once before.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
gapbs=${1:?usage: docs/measure/memory_sitting.sh GAPBS_DIR [ROUNDS] [COMMANDS]}
rounds=${2:-1}
commands=${3:-gapbs-tc tc lcc cdlp pagerank}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/carafe/graphs/gapbs
# each gapbs command needs only its own file: tc the symmetric one, sssp the weighted one, the rest the directed one
sg=$(ls "$cache"/generated-rmat-4847571-68993773-1-*-symmetric.sg 2>/dev/null | head -n 1 || true)
directed=$(ls "$cache"/generated-rmat-4847571-68993773-1-*.sg 2>/dev/null | grep -v -- '-symmetric\.sg$' | head -n 1 || true)
weighted=$(ls "$cache"/generated-rmat-4847571-68993773-1-*.wsg 2>/dev/null | head -n 1 || true)
for c in $commands; do
    case $c in
        gapbs-tc) need=$sg ;;
        gapbs-sssp) need=$weighted ;;
        gapbs-*) need=$directed ;;
        *) continue ;;
    esac
    if [ -z "$need" ]; then
        echo "error: no gapbs graph file for $c in $cache; run bin/carafe bench --kernels tc,pr,sssp -g livejournal-synthetic --gapbs $gapbs once" >&2
        exit 1
    fi
done
out=$(mktemp -d)
peak() { grep -o 'Maximum resident set size (kbytes): [0-9]*' "$1" | grep -o '[0-9]*$'; }
run() { # name, command...
    local name=$1; shift
    /usr/bin/time -v "$@" > "$out/$name.out" 2> "$out/$name.err"
    local kib; kib=$(peak "$out/$name.err")
    local times
    if [ "$1" = bin/carafe ]; then
        times=$(python3 -c 'import json, sys; t = open(sys.argv[1]).read(); s = json.loads(t[t.index("{"):])["seconds"]
print("setup %.3f s, compute %.3f s" % (s.get("setup", 0), s["compute"]))' "$out/$name.out")
    else
        times="trials $(grep -o 'Trial Time: *[0-9.]*' "$out/$name.out" | grep -o '[0-9.]*$' | tr '\n' ' ')s"
    fi
    echo "$name: peak $kib KiB, $(awk -v k="$kib" 'BEGIN { printf "%.1f", k * 1024 / 67584977 }') B an edge; $times"
}
carafe() { # name, arguments: a Carafe command, its JSON kept
    local name=$1; shift
    run "$name" bin/carafe "$@" --format json
}
for round in $(seq 1 "$rounds"); do
    echo "round $round"
    for c in $commands; do
        case $c in
            gapbs-tc) run "$c-$round" env OMP_NUM_THREADS=2 "$gapbs/tc" -f "$sg" -n 1 ;;
            gapbs-pr) run "$c-$round" env OMP_NUM_THREADS=2 "$gapbs/pr" -f "$directed" -n 3 -i 32 -t 0 ;;
            gapbs-bfs) run "$c-$round" env OMP_NUM_THREADS=2 "$gapbs/bfs" -f "$directed" -n 3 -r 276617 ;;
            gapbs-sssp) run "$c-$round" env OMP_NUM_THREADS=2 "$gapbs/sssp" -f "$weighted" -n 3 -r 276617 -d 2 ;;
            gapbs-cc) run "$c-$round" env OMP_NUM_THREADS=2 "$gapbs/cc" -f "$directed" -n 3 ;;
            tc|lcc) carafe "$c-$round" "$c" --graph livejournal-synthetic ;;
            cdlp) carafe "$c-$round" cdlp --graph livejournal-synthetic --iterations 10 ;;
            pagerank) carafe "$c-$round" pagerank --algorithm pregel --graph livejournal-synthetic --iterations 5 ;;
            pagerank32) carafe "$c-$round" pagerank --algorithm pregel --graph livejournal-synthetic --iterations 32 ;;
            scc) carafe "$c-$round" scc --graph livejournal-synthetic ;;
            sssp) carafe "$c-$round" sssp --graph livejournal-synthetic --algorithm pregel --weights random --source 276617 ;;
            sssp-unit) carafe "$c-$round" sssp --graph livejournal-synthetic --algorithm pregel --source 276617 ;;
            bfs) carafe "$c-$round" sssp --graph livejournal-synthetic --algorithm pregel --hops --source 276617 ;;
            wcc) carafe "$c-$round" wcc --graph livejournal-synthetic --algorithm pregel ;;
            wcc-lp) carafe "$c-$round" wcc --graph livejournal-synthetic --algorithm pregel-lp ;;
            *) echo "error: unknown command '$c'; choose from gapbs-tc gapbs-pr gapbs-bfs gapbs-sssp gapbs-cc tc lcc cdlp pagerank pagerank32" \
                    "scc sssp sssp-unit bfs wcc wcc-lp" >&2
               exit 2 ;;
        esac
    done
done
echo "outputs in $out"
