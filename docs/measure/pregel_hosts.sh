#!/usr/bin/env bash
# Pregel worker processes on separate "hosts": four network namespaces on a bridge, every
# link limited by tc. Host s1 runs the master and a memory server, s2 a memory server, w0
# and w1 one worker each (started with --worker-launcher); the coordinator stays in this
# namespace on the bridge. A first run loads the graph into the cluster; the second, which
# finds it there, is measured: its JSON summary, then the bytes each host's link carried
# during it (job setup included), in all and per superstep.
#
#   sudo RATE=10gbit GRAPH=livejournal-synthetic docs/measure/pregel_hosts.sh
#
# Needs root, iproute2 (ip, tc) and a built checkout (bin/carafe builds it). Everything it
# makes (namespaces carafe-s1, -s2, -w0, -w1, bridge carafe-br, veths carafe-v1..v4) is removed at exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
RATE=${RATE:-10gbit}
GRAPH=${GRAPH:-livejournal-synthetic}
ITERATIONS=${ITERATIONS:-32}
export RSTORE_SECRET=${RSTORE_SECRET:-pregel-hosts-$RANDOM$RANDOM}   # ip netns exec keeps the environment
out=$(mktemp -d)
pids=()
hosts=(carafe-s1 carafe-s2 carafe-w0 carafe-w1) # 10.78.0.1 .. 10.78.0.4

cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for ns in "${hosts[@]}"; do ip netns delete "$ns" 2>/dev/null || true; done
    ip link delete carafe-br 2>/dev/null || true
    rm -rf "$out"
}
trap cleanup EXIT

ip link add carafe-br type bridge
ip addr add 10.78.0.254/24 dev carafe-br
ip link set carafe-br up
for h in 1 2 3 4; do
    ns=${hosts[h - 1]}
    ip netns add "$ns"
    ip link add "carafe-v$h" type veth peer name eth0 netns "$ns"
    ip link set "carafe-v$h" master carafe-br up
    ip netns exec "$ns" ip addr add "10.78.0.$h/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    ip netns exec "$ns" ip link set lo up
    # both directions of the host's link: into it (the bridge side) and out of it (its eth0)
    tc qdisc add dev "carafe-v$h" root tbf rate "$RATE" burst 4mb latency 50ms
    ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$RATE" burst 4mb latency 50ms
done

bin/rstore --version >/dev/null # builds once, here, not in a namespace
export CARAFE_SKIP_BUILD=1
ip netns exec carafe-s1 bin/rstore master --bind 10.78.0.1 --port 7400 > "$out/master.log" 2>&1 &
pids+=($!)
sleep 3
for h in 1 2; do
    ip netns exec "carafe-s$h" bin/rstore server --master 10.78.0.1:7400 --bind "10.78.0.$h" --port 7401 --capacity 6GiB \
        > "$out/server$h.log" 2>&1 &
    pids+=($!)
done
sleep 5

counters() { # host, bytes it received and sent: its link's counters seen from the bridge side
    for h in 1 2 3 4; do
        echo "${hosts[h - 1]} $(cat /sys/class/net/carafe-v$h/statistics/tx_bytes) $(cat /sys/class/net/carafe-v$h/statistics/rx_bytes)"
    done
}
job() {
    bin/carafe pagerank --algorithm pregel --graph "$GRAPH" --iterations "$ITERATIONS" --workers 2 --cluster rstore+tcp://10.78.0.1:7400 \
        --worker-processes --worker-launcher "ip netns exec carafe-w{index}" --format json > "$out/job.json" 2> "$out/job.err" || {
        cat "$out/job.err" "$out"/master.log "$out"/server*.log >&2
        exit 1
    }
}
job # loads the graph into the cluster, where it stays
counters > "$out/before"
job
counters > "$out/after"
grep -E "starting .* worker processes" "$out/job.err" || true
cat "$out/job.json"
supersteps=$(grep -o '"superstep" *: *[0-9]*' "$out/job.json" | wc -l)
echo "bytes through each host's link during the second job ($RATE each way; $supersteps supersteps; the coordinator is on the bridge):"
join "$out/before" "$out/after" | while read -r h rx0 tx0 rx1 tx1; do
    echo "$h: received $((rx1 - rx0)) bytes ($(((rx1 - rx0) / supersteps)) per superstep), sent $((tx1 - tx0)) bytes ($(((tx1 - tx0) / supersteps)) per superstep)"
done
