# Shared by bin/* and .ci/run: find a JDK >= 25, find Maven, build when needed, start the
# carafe command from its class cache.
# Source it; it defines functions and sets nothing else.

CARAFE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CARAFE_MIN_JAVA=25

# The feature version (25, 17, ...) of the JDK at $1, or nothing.
jdk_version() {
    local home=$1 v=""
    [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || return 0
    if [ -f "$home/release" ]; then
        v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release")
    fi
    if [ -z "$v" ]; then
        v=$("$home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
    fi
    echo "$v"
}

# Sets JAVA_HOME to a JDK >= 25: JAVA_HOME itself if new enough, else the newest under /usr/lib/jvm.
find_jdk() {
    local v best="" best_v=0 home
    if [ -n "${JAVA_HOME:-}" ]; then
        v=$(jdk_version "$JAVA_HOME")
        if [ -n "$v" ] && [ "$v" -ge "$CARAFE_MIN_JAVA" ]; then
            export JAVA_HOME
            return 0
        fi
        echo "note: JAVA_HOME=$JAVA_HOME is Java ${v:-unknown}; looking under /usr/lib/jvm for Java >= $CARAFE_MIN_JAVA" >&2
    fi
    for home in /usr/lib/jvm/*; do
        v=$(jdk_version "$home")
        if [ -n "$v" ] && [ "$v" -ge "$CARAFE_MIN_JAVA" ] && [ "$v" -gt "$best_v" ]; then
            best=$home
            best_v=$v
        fi
    done
    if [ -z "$best" ]; then
        echo "error: no JDK $CARAFE_MIN_JAVA or newer found (checked JAVA_HOME and /usr/lib/jvm)." >&2
        echo "       Install one (e.g. Temurin 25) and set JAVA_HOME to it." >&2
        return 1
    fi
    export JAVA_HOME=$best
}

# Fails with a clear message when Maven is missing.
require_maven() {
    if ! command -v mvn >/dev/null 2>&1; then
        echo "error: Maven (mvn) is needed to build Carafe; install it (Debian: apt-get install maven)." >&2
        return 1
    fi
}

# Builds the project unless every module jar exists and is newer than every source and pom.
ensure_built() {
    local module=$1 jar stale
    jar=$(ls "$CARAFE_ROOT/$module/target/$module"-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -n 1)
    if [ -n "$jar" ] && [ -d "$CARAFE_ROOT/$module/target/lib" ]; then
        [ "${CARAFE_SKIP_BUILD:-}" = 1 ] && return 0 # a read-only checkout built elsewhere (bin/test-rdma's guest)
        # files only: a directory's time changes when an entry is added or removed, and Maven does not rewrite
        # a jar whose classes did not change, so a directory newer than the jar would ask for a build every run
        # the modules' sources and poms alone (and the build's own tool): walking the whole checkout (.git's objects) cost every command 30-50 ms
        stale=$(find "$CARAFE_ROOT"/pom.xml "$CARAFE_ROOT"/*/pom.xml "$CARAFE_ROOT"/*/src/main "$CARAFE_ROOT"/carafe-cli/src/build -type f -newer "$jar" -print -quit 2>/dev/null)
        [ -z "$stale" ] && return 0
        echo "building: $stale is newer than $(basename "$jar")" >&2
    else
        echo "building Carafe (first run; takes a minute)..." >&2
    fi
    require_maven || return 1
    # Maven itself still uses sun.misc.Unsafe; keep Java 25 from warning about it on every build.
    # jansi.noreset: Maven 3.8 with -q otherwise ends its output with two ANSI resets ("[0m[0m").
    # RSTORE_NATIVE_QUIET: a machine without the verbs headers builds without libdisni silently (rstore doctor says why)
    (cd "$CARAFE_ROOT" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow -Djansi.noreset=true" RSTORE_NATIVE_QUIET=1 \
        mvn -q -B -ntp -Dstyle.color=never -DskipTests install >&2) || {
        echo "error: the build failed; run 'mvn -DskipTests install' in $CARAFE_ROOT to see why." >&2
        return 1
    }
    # the build is current now, but Maven left this jar's time alone if its own classes did not change
    # (another module's source did): without this, every later run would build again
    jar=$(ls "$CARAFE_ROOT/$module/target/$module"-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -n 1)
    [ -n "$jar" ] && touch "$jar"
    return 0
}

# The JVM options of module $1's command line (its jar at $2), in the array jvm_options.
# Off-heap memory (RStore chunks and mappings) counts against MaxDirectMemorySize.
# Native access: RStore maps chunk memory with huge pages through java.lang.foreign.
# sun.nio.ch: DiSNI (the rdma transport) reaches into it on Java 17 and later.
# java.library.path: our libdisni (built where the verbs headers are), then the JVM's usual places;
# a -Djava.library.path in CARAFE_JAVA_OPTS comes later and wins (DiSNI's own libdisni, docs/rdma.md).
# No JIT directive for any one program: every program, built in or a user's, is compiled alike
# (docs/measure/notebook.md, "The JIT shortcut removed"). InlineSmallCode: C2 inlines a method
# already compiled on its own up to 6,000 bytes of code rather than 2,500, so the superstep loop
# may inline a program's compute, which runs often enough to be compiled first: over the engine's
# kernels and pull PageRank 7% faster warm and 2% in a fresh JVM, the engine's PageRank 15% and
# 6% (notebook, "Inlining larger compiled methods, every program alike").
module_jvm_options() {
    local module=$1 jar=$2
    jvm_options=(-XX:MaxDirectMemorySize="${CARAFE_DIRECT_MEMORY:-16g}" -XX:InlineSmallCode=6000 --enable-native-access=ALL-UNNAMED -Drstore.home="$CARAFE_ROOT"
        --add-exports java.base/sun.nio.ch=ALL-UNNAMED
        -Djava.library.path="$CARAFE_ROOT/rstore-client/target/native:/usr/java/packages/lib:/usr/lib64:/lib64:/lib:/usr/lib"
        -cp "$jar:$CARAFE_ROOT/$module/target/lib/*")
}

# Prints the path of the carafe command's AOT cache (JDK 25: the classes a training run loaded,
# loaded and linked ahead of time) when it matches the build, making it first if it does not: the
# quick start's job and each engine kernel on demo-rmat16 (ClassCacheTraining), once per build.
# Commands then start sooner. The cache records no method profiles (-AOTRecordTraining, a
# diagnostic flag): compiled from the training's profiles, where four programs share the
# superstep loop, WCC computed 10-15% slower and none faster (docs/measure/notebook.md).
# Prints nothing, and the command runs as without it, when CARAFE_AOT=off, in a checkout
# built elsewhere, or if the training run failed (its log says why).
carafe_aot_cache() {
    local jar=$1 target="$CARAFE_ROOT/carafe-cli/target" jdk
    # one cache per JDK build (a cache only serves the JVM that made it)
    jdk=$(cksum < "$JAVA_HOME/release" 2>/dev/null | cut -d ' ' -f 1)
    local aot="$target/carafe-cli-${jdk:-jdk}.aot" failed="$target/carafe-cli-${jdk:-jdk}.aot.failed"
    [ "${CARAFE_AOT:-on}" != off ] || return 0
    if [ -f "$aot" ] && [ -z "$(find "$jar" "$target/lib" -newer "$aot" -print -quit)" ]; then
        echo "$aot"
        return 0
    fi
    [ "${CARAFE_SKIP_BUILD:-}" != 1 ] && [ -w "$target" ] || return 0
    [ -f "$failed" ] && [ -z "$(find "$jar" -newer "$failed" -print -quit)" ] && return 0
    echo "preparing a class cache for faster starts (once per build; CARAFE_AOT=off skips it)..." >&2
    local tmp="$aot.$$" jvm_options
    module_jvm_options carafe-cli "$jar"
    # one JVM at a time writes its own file; the rename makes it appear whole
    if "$JAVA_HOME/bin/java" "${jvm_options[@]}" -XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining -XX:AOTCacheOutput="$tmp" \
            io.carafe.cli.ClassCacheTraining < /dev/null > "$aot.log" 2>&1 &&
            [ -f "$tmp" ]; then
        mv -f "$tmp" "$aot"
        rm -f "$failed"
        echo "$aot"
    else
        rm -f "$tmp" "$tmp.config"
        touch "$failed"
        echo "note: no class cache; the training run failed (see $aot.log)" >&2
    fi
}

# Runs main class $2 of module $1 with the remaining arguments.
run_module() {
    local module=$1 main=$2
    shift 2
    find_jdk || exit 1
    ensure_built "$module" || exit 1
    local jar aot="" jvm_options aot_options=()
    jar=$(ls "$CARAFE_ROOT/$module/target/$module"-*.jar | grep -v -e sources -e javadoc | head -n 1)
    module_jvm_options "$module" "$jar"
    if [ "$module" = carafe-cli ]; then
        aot=$(carafe_aot_cache "$jar")
    fi
    # a cache the JVM finds stale (another JDK, say) is ignored, silently with these logs off
    [ -z "$aot" ] || aot_options=(-XX:AOTCache="$aot" -Xlog:aot=off,cds=off)
    exec "$JAVA_HOME/bin/java" "${jvm_options[@]}" ${aot_options[@]+"${aot_options[@]}"} ${CARAFE_JAVA_OPTS:-} "$main" "$@"
}
