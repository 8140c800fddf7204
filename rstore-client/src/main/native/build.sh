#!/usr/bin/env bash
# Builds libdisni.so (disni.c: our implementation of DiSNI 2.1's native methods) into $1.
# Run by Maven (rstore-client's compile phase). Without the verbs headers (Debian:
# libibverbs-dev librdmacm-dev) it says so and builds nothing: RStore then runs on its
# other transports, and `rstore doctor` tells why rdma is not available.
set -euo pipefail
out=${1:?usage: build.sh OUTPUT_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
java_home=${JAVA_HOME:?JAVA_HOME must name the JDK whose jni.h to use}
mkdir -p "$out"
# RSTORE_NATIVE_QUIET=1 (bin/'s first build): no note, so a quick start prints only its own output
note() { [ -n "${RSTORE_NATIVE_QUIET:-}" ] || echo "note: $*" >&2; }
if ! command -v gcc >/dev/null 2>&1; then
    note "no gcc; libdisni (RDMA through DiSNI) not built"
    exit 0
fi
if [ ! -f /usr/include/infiniband/verbs.h ] || [ ! -f /usr/include/rdma/rdma_cma.h ]; then
    note "libdisni (RDMA through DiSNI) not built: the verbs headers are missing (Debian: apt-get install libibverbs-dev librdmacm-dev)"
    rm -f "$out/libdisni.so"
    exit 0
fi
if [ -f "$out/libdisni.so" ] && [ "$out/libdisni.so" -nt "$here/disni.c" ] && [ "$out/libdisni.so" -nt "$here/build.sh" ]; then
    exit 0
fi
gcc -std=c11 -O2 -g -fPIC -shared -Wall -Wextra -Werror -Wno-unused-parameter \
    -I"$java_home/include" -I"$java_home/include/linux" \
    -o "$out/libdisni.so.tmp" "$here/disni.c" -lrdmacm -libverbs
mv "$out/libdisni.so.tmp" "$out/libdisni.so"
echo "built $out/libdisni.so" >&2
