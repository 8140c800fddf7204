#!/usr/bin/env bash
# Runs inside bin/test-rdma's QEMU guest (this machine's root, read-only, under a guest
# kernel with SoftRoCE): makes rxe0 on eth0, then runs the RDMA suites on the disni device
# (mode test) or perftest beside rstore bench (mode bench). Writes "N passed, M failed" to
# $CARAFE_GUEST_RESULTS/summary, which bin/test-rdma reads back.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$(pwd)
mode=${1:-test}
results=${CARAFE_GUEST_RESULTS:?}
address=10.0.2.15
export RSTORE_RDMA_ADDRESS=$address
passed=0
failed=0

source "$root/bin/lib/common.sh"
find_jdk >/dev/null
java=$JAVA_HOME/bin/java

step() { # step NAME COMMAND...: one pass or fail
    local name=$1 start=$SECONDS
    shift
    echo "=== $name"
    if "$@"; then
        passed=$((passed + 1))
        echo "--- PASS $name ($((SECONDS - start)) s)"
    else
        failed=$((failed + 1))
        echo "--- FAIL $name ($((SECONDS - start)) s)"
    fi
}

finish() {
    echo "$passed passed, $failed failed" > "$results/summary"
    sync
    exit 0
}

# ---- the device ----
rdma link add rxe0 type rxe netdev eth0 || { echo "guest: rdma link add failed"; failed=1; finish; }
for _ in $(seq 1 50); do
    ibv_devinfo -d rxe0 2>/dev/null | grep -q PORT_ACTIVE && break
    sleep 0.2
done
ibv_devinfo -d rxe0 | grep -E "hca_id|state|link_layer"
ulimit -l unlimited

# A JVM as bin/ starts it, with C1 only: the C2 compiler costs more than it gains under emulation.
jvm_options=(-XX:TieredStopAtLevel=1 -XX:MaxDirectMemorySize=4g --enable-native-access=ALL-UNNAMED
    --add-exports java.base/sun.nio.ch=ALL-UNNAMED "-Djava.library.path=$root/rstore-client/target/native")
export CARAFE_JAVA_OPTS="-XX:TieredStopAtLevel=1"
export RSTORE_RDMA_DEVICE=disni
export CARAFE_SKIP_BUILD=1 # the checkout is read-only here; bin/test-rdma built it

logs=/tmp/rstore-logs
mkdir -p "$logs"
daemons=()
start_daemons() { # a master and two memory servers on the device, control calls over RDMA on 7401
    # the guest's private network has no cluster secret: protected mode wants --insecure to listen on the device's address
    bin/rstore master --bind "$address" --port 7400 --rdma-port 7401 --insecure > "$logs/master.log" 2>&1 &
    daemons+=($!)
    local master=$!
    for _ in $(seq 1 600); do
        (exec 3<>"/dev/tcp/$address/7400") 2>/dev/null && break
        kill -0 "$master" 2>/dev/null || { echo "the master exited; its log:"; tail -n 20 "$logs/master.log"; return 1; }
        sleep 0.5
    done
    for i in 1 2; do
        bin/rstore server --master "$address:7400" --bind "$address" --advertise "$address" --capacity 512MiB --shm-dir "" --insecure \
            > "$logs/server$i.log" 2>&1 &
        daemons+=($!)
    done
    for _ in $(seq 1 600); do
        [ "$(bin/rstore status -c "rstore+tcp://$address:7400" 2>/dev/null | grep -c ' alive ')" -ge 2 ] && return 0
        sleep 1
    done
    echo "the daemons did not come up; their logs:"
    tail -n 20 "$logs"/*.log
    return 1
}

stop_daemons() {
    kill "${daemons[@]}" 2>/dev/null
    wait "${daemons[@]}" 2>/dev/null
    daemons=()
}

junit() { # the device contract, RdmaDeviceTest, the conformance suite (barrier included) on disni
    local report=/tmp/junit.txt selection=()
    if [ -n "$only" ]; then
        for class in ${only//,/ }; do selection+=(--select-class "$class"); done
    else
        selection=(--select-class io.rstore.transport.rdma.DisniDeviceTest --select-class io.rstore.net.RdmaDeviceTest
            --select-class io.rstore.net.ServerKilledTest --select-package io.rstore.conformance)
    fi
    # emulation is many times slower than a machine: the tests' own bounds stretch, the guest's budget bounds all;
    # a thread dump every 10 minutes shows where a slow run spends it
    # one class path for the launcher and the tests, so that a test's own JVMs (ServerKilledTest's daemons) get it too
    local launcher=("$results"/junit-platform-console-standalone-*.jar)
    RSTORE_TEST_TRANSPORTS=disni RSTORE_TEST_TIME_SCALE=10 "$java" "${jvm_options[@]}" -Xmx2g -Djunit.jupiter.execution.timeout.mode=disabled \
        -cp "${launcher[0]}:$root/rstore-client/target/test-classes:$root/rstore-server/target/test-classes:$root/rstore-server/target/classes:$(cat "$results/classpath")" \
        org.junit.platform.console.ConsoleLauncher execute --disable-banner --details=tree --disable-ansi-colors \
        "${selection[@]}" > >(tee "$report") 2>&1 &
    local pid=$! status
    ( while kill -0 "$pid" 2>/dev/null; do sleep 600; kill -0 "$pid" 2>/dev/null && "$JAVA_HOME/bin/jcmd" "$pid" Thread.print; done ) &
    wait "$pid"
    status=$?
    sleep 1
    local ok bad skipped
    ok=$(sed -n 's/.*\[ *\([0-9]*\) tests successful *\].*/\1/p' "$report")
    bad=$(sed -n 's/.*\[ *\([0-9]*\) tests failed *\].*/\1/p' "$report")
    skipped=$(sed -n 's/.*\[ *\([0-9]*\) tests skipped *\].*/\1/p' "$report")
    echo "junit: ${ok:-0} successful, ${bad:-?} failed, ${skipped:-0} skipped"
    passed=$((passed + ${ok:-0}))
    failed=$((failed + ${bad:-1}))
    [ "$status" = 0 ] && [ "${ok:-0}" -gt 0 ]
}

doctor_opens_the_device() {
    local out
    out=$(bin/rstore doctor -c "rstore://$address:7400" 2>&1)
    echo "$out"
    grep -q "opened rxe0" <<< "$out" && grep -q "rdma (disni)" <<< "$out"
}

status_reaches_servers_over_rdma() {
    local out
    out=$(bin/rstore status -c "rstore+rdma://$address:7401" 2>&1)
    echo "$out"
    [ "$(grep -c ' rdma' <<< "$out")" -ge 2 ]
}

bench_over_rdma() {
    bin/rstore bench --cluster "rstore+rdma://$address:7401" --ops 1000 --rounds 1 --control-max 1MiB --bandwidth-max 4MiB --bandwidth-bytes 64MiB --in-flight 1,16
}

pagerank_with_worker_processes() {
    local out
    out=$(bin/carafe pagerank --algorithm pregel --graph wiki-vote --cluster "rstore+rdma://$address:7401" --workers 2 --worker-processes --verify 2>&1)
    local status=$?
    echo "$out" | tail -n 25
    [ "$status" = 0 ] && grep -q "verify: OK" <<< "$out"
}

only=$(sed -n 's/.* carafe.tests=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ -n "$only" ]; then
    step "junit: $only on disni" junit
elif [ "$mode" = test ]; then
    step "junit: device contract, RdmaDeviceTest, conformance suite on disni" junit
    step "daemons: master and two memory servers on rxe0" start_daemons
    step "rstore doctor -c opens the device and picks rdma" doctor_opens_the_device
    step "rstore status over rstore+rdma://" status_reaches_servers_over_rdma
    step "rstore bench --cluster rstore+rdma://" bench_over_rdma
    step "carafe pagerank on wiki-Vote, worker processes over rdma, verified" pagerank_with_worker_processes
    stop_daemons
else
    perftest() { # NAME TOOL ARGS...: server and client of one perftest tool over rxe0, in this guest; the client's report kept as NAME.txt
        local name=$1 tool=$2 server
        shift 2
        "$tool" -d rxe0 "$@" > /tmp/perftest-server.txt 2>&1 &
        server=$!
        sleep 2
        "$tool" -d rxe0 "$@" "$address" | tee "$results/$name.txt"
        local status=${PIPESTATUS[0]}
        wait "$server" # its server only: the daemons may be running too
        return $status
    }
    # the client with both JIT compilers, as a user's JVM runs: the bench measures the steady state after its warm-up
    rstore_bench() { # NAME: a fresh client JVM's bench, its JSON kept as NAME.json
        CARAFE_JAVA_OPTS= bin/rstore bench --cluster "rstore+rdma://$address:7401" --ops 2000 --rounds 5 --control-max 1MiB --bandwidth-max 1MiB \
            --bandwidth-bytes 256MiB --in-flight 1,16 --format json > "$results/$1.json"
    }
    # Under emulation both sides' speed shifts by a fifth from one minute to the next (docs/measure/notebook.md): each
    # round runs perftest and a fresh bench JVM next to each other, the order alternating, and PerftestComparison takes
    # the median of the rounds' ratios.
    one_round() { # R
        local r=$1
        if [ $((r % 2)) = 1 ]; then
            perftest "ib_read_lat-$r" ib_read_lat -s 8 -n 2000 && perftest "ib_read_bw-$r" ib_read_bw -s 1048576 -n 200 &&
                rstore_bench "rstore-bench-$r"
        else
            rstore_bench "rstore-bench-$r" && perftest "ib_read_lat-$r" ib_read_lat -s 8 -n 2000 &&
                perftest "ib_read_bw-$r" ib_read_bw -s 1048576 -n 200
        fi
    }
    compare_with_perftest() {
        local r rounds=()
        for r in 1 2 3; do
            rounds+=("$results/ib_read_lat-$r.txt" "$results/ib_read_bw-$r.txt" "$results/rstore-bench-$r.json")
        done
        "$java" -XX:TieredStopAtLevel=1 -cp "$(bin/classpath)" io.rstore.bench.PerftestComparison "$results/rdma-bench.json" "${rounds[@]}"
    }
    step "daemons" start_daemons
    for r in 1 2 3; do
        step "round $r: ib_read_lat, ib_read_bw and rstore bench next to each other" one_round "$r"
    done
    step "rstore beside perftest, this boot" compare_with_perftest
    stop_daemons
fi
finish
