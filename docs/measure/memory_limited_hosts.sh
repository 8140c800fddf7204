#!/usr/bin/env bash
# A graph no single host could hold: six "hosts", each a network namespace on a bridge and a
# memory cgroup whose limit (LIMIT) is below the graph's size in RStore. carafe-m runs the
# master, carafe-s1..s3 a memory server each, carafe-w0 and carafe-w1 a Pregel worker each
# (started by --worker-launcher, which moves each into its host's cgroup before the JVM
# starts, so the JVM sizes its heap by the limit too). The command itself, on the bridge,
# loads the graph into the cluster, coordinates and verifies: PageRank, then CDLP, each
# with --verify against an independent implementation. At the end it prints each host's
# peak memory as its cgroup counted it (memory.max_usage_in_bytes, or memory.peak on v2).
#
#   sudo GRAPH=livejournal-synthetic LIMIT=700M docs/measure/memory_limited_hosts.sh
#
# Needs root, iproute2 and a memory cgroup controller (v1's memory hierarchy or v2's
# memory.max); a built checkout (bin/carafe builds it). Everything it makes (namespaces,
# bridge carafe-mbr, veths carafe-mv*, cgroups carafe-*) is removed at exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
GRAPH=${GRAPH:-livejournal-synthetic}
LIMIT=${LIMIT:-700M}
SERVER_CAPACITY=${SERVER_CAPACITY:-2GiB} # what a server may reserve; its cgroup bounds what it holds
export RSTORE_SECRET=${RSTORE_SECRET:-limited-hosts-$RANDOM$RANDOM}   # ip netns exec keeps the environment
out=$(mktemp -d)
pids=()
hosts=(carafe-m carafe-s1 carafe-s2 carafe-s3 carafe-w0 carafe-w1) # 10.79.0.1 .. 10.79.0.6

# the memory controller: v1's hierarchy (this process's own group, so we may nest in it), else v2
if [ -d /sys/fs/cgroup/memory ]; then
    parent=/sys/fs/cgroup/memory$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
    limit_file=memory.limit_in_bytes peak_file=memory.max_usage_in_bytes
else
    parent=/sys/fs/cgroup$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)
    limit_file=memory.max peak_file=memory.peak
    echo +memory > "$parent/cgroup.subtree_control" 2>/dev/null || true
fi

cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for ns in "${hosts[@]}"; do
        ip netns delete "$ns" 2>/dev/null || true
        rmdir "$parent/$ns" 2>/dev/null || true
    done
    ip link delete carafe-mbr 2>/dev/null || true
    rm -rf "$out"
}
trap cleanup EXIT

ip link add carafe-mbr type bridge
ip addr add 10.79.0.254/24 dev carafe-mbr
ip link set carafe-mbr up
for h in 1 2 3 4 5 6; do
    ns=${hosts[h - 1]}
    ip netns add "$ns"
    ip link add "carafe-mv$h" type veth peer name eth0 netns "$ns"
    ip link set "carafe-mv$h" master carafe-mbr up
    ip netns exec "$ns" ip addr add "10.79.0.$h/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    ip netns exec "$ns" ip link set lo up
    mkdir -p "$parent/$ns"
    echo "$LIMIT" > "$parent/$ns/$limit_file"
    [ -f "$parent/$ns/memory.memsw.limit_in_bytes" ] && echo "$LIMIT" > "$parent/$ns/memory.memsw.limit_in_bytes" 2>/dev/null || true
done
# host NS COMMAND...: runs COMMAND in host NS's namespace and cgroup (it joins the cgroup, then execs)
# (a JVM sizes its heap by the cgroup's limit, a quarter by default: the workers' in-edge lists want more of it)
cat > "$out/host" <<EOF
#!/bin/sh
ns=\$1; shift
echo \$\$ > "$parent/\$ns/cgroup.procs"
export JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=60"
exec ip netns exec "\$ns" "\$@"
EOF
chmod +x "$out/host"

bin/rstore --version >/dev/null # builds once, here, not in a namespace
export CARAFE_SKIP_BUILD=1
"$out/host" carafe-m bin/rstore master --bind 10.79.0.1 --port 7400 > "$out/master.log" 2>&1 &
pids+=($!)
sleep 3
for s in 1 2 3; do
    "$out/host" "carafe-s$s" bin/rstore server --master 10.79.0.1:7400 --bind "10.79.0.$((s + 1))" --port 7401 \
        --capacity "$SERVER_CAPACITY" > "$out/server$s.log" 2>&1 &
    pids+=($!)
done
sleep 5

for job in "pagerank --algorithm pregel --iterations 20" "cdlp --iterations 10"; do
    echo "== $job on $GRAPH, every host limited to $LIMIT"
    # shellcheck disable=SC2086
    if ! bin/carafe $job --graph "$GRAPH" --workers 2 --cluster rstore+tcp://10.79.0.1:7400 --worker-processes \
        --worker-launcher "$out/host carafe-w{index}" --verify 2> "$out/job.err"; then
        cat "$out/job.err" "$out"/master.log "$out"/server*.log >&2
        exit 1
    fi
    grep -E "verify:|starting .* worker processes|loaded|using" "$out/job.err" || true
done
echo "peak memory of each host, as its cgroup counted it (limit $LIMIT):"
for ns in "${hosts[@]}"; do
    echo "$ns: $(($(cat "$parent/$ns/$peak_file") / 1000000)) MB"
done
