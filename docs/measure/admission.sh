#!/usr/bin/env bash
# Starts a master and a memory server on loopback with the default limits (conf/rstore.conf),
# then runs docs/measure/Admission.java against them and stops them.
#   docs/measure/admission.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source bin/lib/common.sh
find_jdk
logs=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$logs"' EXIT
bin/rstore master --port 0 > "$logs/master.log" 2>&1 &
master=$!
for _ in $(seq 600); do grep -q "serving on" "$logs/master.log" && break; sleep 0.1; done
port=$(sed -n 's/.*serving on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$logs/master.log" | head -1)
bin/rstore server --master "127.0.0.1:$port" --rdma-device none > "$logs/server.log" 2>&1 &
for _ in $(seq 600); do grep -q "serving" "$logs/server.log" && break; sleep 0.1; done
# the master's JVM is the java child of bin/rstore's exec: the same pid
"$JAVA_HOME/bin/java" -cp "rstore-server/target/*:rstore-server/target/lib/*" docs/measure/Admission.java "$port" "$master"
