#!/usr/bin/env bash
# Sets up what Taskfence needs on this machine, then runs the service or its tests.
#
#   scripts/dev.sh run    build and start the service on http://localhost:8080
#   scripts/dev.sh test   run the whole test suite against the local Redis and PostgreSQL, with the benchmarks at smoke size
#   scripts/dev.sh replicas [N]   build and start N replicas (default 3) on ports 8081.., sharing the work
#   scripts/dev.sh native-check   run GraalVM's image builder over the native sources (needs ../shared/native-check)
#   scripts/dev.sh bench [smoke]  measure throughput and latency against db-scheduler, Redisson and a ceiling
#   scripts/dev.sh chaos [minutes]  3 replicas under mixed load while a fault hits every 20-40 s (default 5 minutes),
#                                 then check that no task was lost; prints the summary (CHAOS_SEED=n replays a run)
#
# It picks a JDK >= 21 (installing one from Debian's packages if none is found), and makes sure Redis
# (127.0.0.1:6379) and PostgreSQL (127.0.0.1:5432, database "test") answer, installing them from
# Debian's packages and starting them if needed. A server that already answers is left as it is.
set -euo pipefail

cd "$(dirname "$0")/.."

log() { printf '[dev] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=""
apt_install() {
  if ! command -v apt-get >/dev/null; then
    log "cannot install $*: no apt-get here; install it yourself and run again"
    exit 1
  fi
  if [ -z "$apt_updated" ]; then
    as_root apt-get update -qq
    apt_updated=yes
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

java_major() { # prints the feature version of the JDK whose home is $1, or nothing
  [ -x "$1/bin/javac" ] || return 0
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'
}

ensure_jdk() {
  local candidate major best="" best_major=0
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -d "$candidate" ] || continue
    major=$(java_major "$candidate")
    if [ -n "$major" ] && [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
      best="$candidate" best_major="$major"
    fi
  done
  if [ -z "$best" ]; then
    log "no JDK >= 21 found; installing one from Debian's packages"
    apt_install openjdk-21-jdk-headless || apt_install openjdk-25-jdk-headless
    best=$(ls -d /usr/lib/jvm/java-2[1-9]-openjdk-* | tail -n 1)
    best_major=$(java_major "$best")
  fi
  export JAVA_HOME="$best"
  export PATH="$JAVA_HOME/bin:$PATH"
  log "JDK $best_major at $JAVA_HOME"
}

wait_for() { # wait_for NAME COMMAND...: up to 30 s
  local name=$1; shift
  for _ in $(seq 1 60); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  log "$name does not answer"
  exit 1
}

ensure_redis() {
  # Also what the Sentinel failover test needs: it starts its sentinels as `redis-server <file> --sentinel`
  # (the same binary; Debian's redis-sentinel package only adds a service for it).
  command -v redis-server >/dev/null || { log "installing Redis"; apt_install redis-server; }
  if redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
    log "Redis answers on 127.0.0.1:6379"
    return
  fi
  log "starting Redis"
  local dir=/var/lib/redis
  [ -w "$dir" ] || dir=$(mktemp -d)
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir "$dir" --logfile "$dir/taskfence-redis.log"
  wait_for Redis sh -c 'redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG'
}

ensure_postgres() {
  local installed_now=""
  if ! command -v pg_ctlcluster >/dev/null; then
    log "installing PostgreSQL"
    apt_install postgresql
    installed_now=yes
  fi
  local version
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  if [ -n "$installed_now" ]; then
    # A fresh install asks for passwords on TCP; this throw-away local server trusts loopback instead.
    local hba="/etc/postgresql/$version/main/pg_hba.conf"
    as_root sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main restart || true
  fi
  if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    log "starting PostgreSQL $version"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start
  fi
  wait_for PostgreSQL pg_isready -q -h 127.0.0.1 -p 5432
  if [ "$(psql -h 127.0.0.1 -U postgres -d postgres -tAc "select 1 from pg_database where datname = 'test'")" != 1 ]; then
    log "creating database test"
    psql -h 127.0.0.1 -U postgres -d postgres -qc 'create database test'
  fi
  log "PostgreSQL answers on 127.0.0.1:5432"
}

ensure_kubectl() { # the tests of k8s/ render it with kubectl's kustomize, as `kubectl apply -k` would
  command -v kubectl >/dev/null && return
  log "installing kubectl"
  apt_install kubectl || { log "the tests of k8s/ need kubectl (with kustomize): install it and run again"; exit 1; }
}

# GraalVM 25's own image builder (jars from Maven Central, run on Temurin 25) over the native sources, up to
# the link: class initialisation, reachability analysis and unresolved elements fail here as in a real build.
NATIVE_CHECK=${TASKFENCE_NATIVE_CHECK:-../shared/native-check}

build_native_sources() { # Quarkus's native build steps without GraalVM, up to the image's inputs in DIR/target/native-sources
  log "native build steps (sources only; GraalVM is needed only for the last step, native-image itself)"
  (cd "$1" && ./mvnw -B -q package -Dnative -Dquarkus.native.sources-only=true -DskipTests)
}

check_native_sources() { # what the native build steps left in DIR/target must hold what the image needs
  local dir=$1/target/native-sources unpacked runner
  [ -s "$dir/native-image.args" ] || { log "the native build left no $dir/native-image.args"; exit 1; }
  runner=$(cd "$dir" && ls "$PWD"/*-runner.jar)
  unpacked=$(mktemp -d)
  (cd "$unpacked" && "$JAVA_HOME/bin/jar" xf "$runner" META-INF/native-image/resource-config.json \
    META-INF/native-image/reflect-config.json)
  for resources in 'lock/' 'queue/' 'db/migration/'; do
    grep -qF "\"$resources" "$unpacked/META-INF/native-image/resource-config.json" \
      || { log "the native image would lack the resources under $resources"; exit 1; }
  done
  local page
  for page in src/main/resources/META-INF/resources/dashboard/*; do # Quarkus registers static files one by one
    grep -qF "META-INF/resources/dashboard/${page##*/}" "$unpacked/META-INF/native-image/resource-config.json" \
      || { log "the native image would lack the dashboard's ${page##*/}"; exit 1; }
  done
  # What the API reads and writes as JSON: Jackson gets at these by reflection, which a native image allows only for
  # registered classes (Problem only comes from exception mappers, so it is registered by annotation).
  for type in api.Problem 'api.Problem$Violation' task.Task task.TaskPage 'api.StatsResource$Stats' lock.LockHolder \
    api.BatchRequest api.BatchTask api.BatchAnswer 'api.BatchAnswer$Item'; do
    grep -qF "\"name\":\"io.taskfence.$type\"" "$unpacked/META-INF/native-image/reflect-config.json" \
      || { log "the native image would not let Jackson write io.taskfence.$type (not registered for reflection)"; exit 1; }
  done
  rm -rf "$unpacked"
  log "native build steps passed: $dir holds the native-image arguments, with the Lua scripts, migrations,"
  log "the dashboard's files and the API's JSON types registered for reflection"
}

check_native_image() { # GraalVM's image builder over the native sources of the project in DIR
  if [ ! -x "$NATIVE_CHECK/run.sh" ]; then
    log "the native image check needs GraalVM's builder scripts in $NATIVE_CHECK (set TASKFENCE_NATIVE_CHECK to"
    log "where they are); without them only the sources-only step above has run"
    return 1
  fi
  log "GraalVM's image builder over the native sources ($NATIVE_CHECK/run.sh; 4-10 minutes, about 3 GB)"
  # It builds the native sources itself. -Ob (quick build) compiles with fewer optimisations, which halves the
  # compile stage; the analysis, class initialisation and heap checks this is for are the same as a release build's.
  QUARKUS_NATIVE_ADDITIONAL_BUILD_ARGS=-Ob "$NATIVE_CHECK/run.sh" "$1"
}

# The test command's native checks run beside the tests, which leave a core idle most of the time: on a copy of
# the project (its own target/, so that the two builds never write the same files), at the lowest priority (so
# that the tests' timing is not theirs to decide), in a session of their own (so that it can be stopped whole).
NATIVE_PROJECT=target/native-project
NATIVE_LOG=target/native-check.log
native_pid=""

start_native_checks() {
  rm -rf "$NATIVE_PROJECT" && mkdir -p "$NATIVE_PROJECT"
  cp -r pom.xml mvnw .mvn src "$NATIVE_PROJECT/"
  if [ -d "$NATIVE_CHECK" ]; then
    log "GraalVM's image builder runs beside the tests (log: $NATIVE_LOG)"
    setsid nice -n 19 bash -c "$(declare -f log check_native_image); NATIVE_CHECK='$NATIVE_CHECK'; \
      check_native_image '$NATIVE_PROJECT'" >"$NATIVE_LOG" 2>&1 &
  else
    log "skipping GraalVM's image builder: $NATIVE_CHECK is not here (CI has it; see scripts/dev.sh native-check);"
    log "the native build steps run beside the tests (log: $NATIVE_LOG)"
    setsid nice -n 19 bash -c "$(declare -f log build_native_sources); build_native_sources '$NATIVE_PROJECT'" \
      >"$NATIVE_LOG" 2>&1 &
  fi
  native_pid=$!
  trap stop_native_checks EXIT
}

stop_native_checks() {
  [ -n "$native_pid" ] && kill -- -"$native_pid" 2>/dev/null
  return 0
}

finish_native_checks() { # waits for them; their log, and the test command's failure if they failed
  log "waiting for the native checks"
  local status=0
  wait "$native_pid" || status=$?
  native_pid=""
  cat "$NATIVE_LOG" >&2
  [ "$status" -eq 0 ] || { log "the native checks failed (exit $status)"; exit 1; }
  check_native_sources "$NATIVE_PROJECT"
}

ensure_wrk() { # the load generator of the REST benchmarks
  command -v wrk >/dev/null && return
  log "installing wrk"
  apt_install wrk
}

ensure_chromium() { # the dashboard's browser tests drive Debian's headless chromium through its chromedriver
  command -v chromium >/dev/null && command -v chromedriver >/dev/null && return
  log "installing chromium and chromium-driver"
  apt_install chromium chromium-driver
}

# The figures the benchmarks left in target/bench/results.tsv (key<TAB>value), as a Markdown table.
bench_table() {
  awk -F '\t' -v tasks="$1" '
    { v[$1] = $2 }
    function f(k, d) { return (k in v) ? sprintf("%.*f", d, v[k]) : "n/a" }
    function ratio(a, b) { return (a in v && b in v && v[b] > 0) ? sprintf("%.2f×", v[a] / v[b]) : "" }
    END {
      print "| measure | Taskfence | peer or ceiling | Taskfence ÷ peer |"
      print "|---|---|---|---|"
      printf "| drain %d pre-loaded `noop` tasks, 3 replicas × 8 workers, 24 claimed ahead (tasks/s) | %s | db-scheduler 16.12, lock-and-fetch, 3 × 8: %s | %s |\n", tasks, f("drain.taskfence", 0), f("drain.dbscheduler", 0), ratio("drain.taskfence", "drain.dbscheduler")
      printf "| REST submit, one task a request, wrk 2 threads × 32 connections (requests/s) | %s | trivial endpoint, same replica: %s | %s |\n", f("submit.single", 0), f("submit.trivial", 0), ratio("submit.single", "submit.trivial")
      printf "| REST bulk submit, 1,000 tasks a request (tasks/s) | %s | | |\n", f("submit.bulk", 0)
      printf "| submit → start on an idle 3-replica cluster, p50 / p99 (ms, PostgreSQL clock) | %s / %s | | |\n", f("latency.p50", 1), f("latency.p99", 1)
      split("1 8 64", t, " ")
      for (i = 1; i <= 3; i++) printf "| lock acquire + release, %d thread%s (pairs/s) | %s | Redisson 4.7 `RLock`: %s | %s |\n", t[i], t[i] == 1 ? "" : "s", f("lock.taskfence." t[i], 0), f("lock.redisson." t[i], 0), ratio("lock.taskfence." t[i], "lock.redisson." t[i])
    }' target/bench/results.tsv
}

run_bench() { # run_bench TASKS WARM_UPS SECONDS: Taskfence's benchmarks (failsafe, profile bench), then the peers' (bench/)
  local tasks=$1 warm_ups=$2 seconds=$3
  rm -f target/bench/results.tsv
  ./mvnw -B -q -Pbench verify -Dtest='io.taskfence.bench.*Bench' -Dit.test='io.taskfence.bench.*BenchIT' \
    -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
    -Dbench.tasks="$tasks" -Dbench.warm-ups="$warm_ups" -Dbench.seconds="$seconds" -Dbench.jfr="${BENCH_JFR:-}"
  run_peers "$tasks" "$warm_ups" "$seconds"
  bench_table "$tasks"
}

run_peers() { # run_peers TASKS WARM_UPS SECONDS: the peers' benchmarks (bench/), adding to target/bench/results.tsv
  ./mvnw -B -q -f bench/pom.xml package -DskipTests
  "$JAVA_HOME/bin/java" -cp "$(cat bench/target/classpath.txt):bench/target/classes" io.taskfence.bench.peers.Peers \
    --tasks "$1" --warm-ups "$2" --seconds "$3" --results target/bench/results.tsv
  log "on $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(psql -h 127.0.0.1 \
    -U postgres -d postgres -tAc 'show server_version' | cut -d' ' -f1) PostgreSQL, Redis $(redis-server --version \
    | sed -E 's/.*v=([^ ]+).*/\1/'), JDK $("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java.version = //p')"
}

readable_logs() { # the packaged service logs JSON (prod profile) for collectors; people at a terminal read text
  export QUARKUS_LOG_CONSOLE_JSON_ENABLED="${QUARKUS_LOG_CONSOLE_JSON_ENABLED:-false}"
}

demo_handlers() { # a local trial runs the README's examples, which use sleep and flaky (off in production)
  export TASKFENCE_HANDLERS_DEMO_ENABLED="${TASKFENCE_HANDLERS_DEMO_ENABLED:-true}"
}

trial_key() { # a local trial needs an API key the prod profile accepts: make one up unless one is set
  if env | grep -q '^TASKFENCE_AUTH_KEYS_[A-Z0-9]*_SECRET='; then
    return
  fi
  TASKFENCE_AUTH_KEYS_DEV_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  export TASKFENCE_AUTH_KEYS_DEV_SECRET TASKFENCE_AUTH_KEYS_DEV_ROLE=admin
  log "admin API key for this run (key name dev): $TASKFENCE_AUTH_KEYS_DEV_SECRET"
}

case "${1:-}" in
  run)
    ensure_jdk; ensure_redis; ensure_postgres; readable_logs; demo_handlers; trial_key
    ./mvnw -B -q package -DskipTests
    exec java -jar target/quarkus-app/quarkus-run.jar
    ;;
  replicas)
    count=${2:-3}
    ensure_jdk; ensure_redis; ensure_postgres; readable_logs; demo_handlers; trial_key
    ./mvnw -B -q package -DskipTests
    mkdir -p target/replicas-local
    pids=()
    trap 'kill "${pids[@]}" 2>/dev/null; wait' EXIT INT TERM
    for i in $(seq 1 "$count"); do
      QUARKUS_HTTP_PORT=$((8080 + i)) QUARKUS_MANAGEMENT_PORT=$((9000 + i)) TASKFENCE_REPLICA_ID="replica-$i" \
        java -jar target/quarkus-app/quarkus-run.jar >"target/replicas-local/replica-$i.log" 2>&1 &
      pids+=($!)
      log "replica-$i on http://localhost:$((8080 + i)) (health, metrics: $((9000 + i))), log in target/replicas-local/replica-$i.log"
    done
    log "Ctrl-C stops them all"
    wait
    ;;
  bench)
    ensure_jdk; ensure_redis; ensure_postgres; ensure_wrk
    case "${2:-full}" in
      smoke) run_bench 500 1 2 ;;   # keeps the benchmarks working (CI); its figures mean little
      full) run_bench "${BENCH_TASKS:-20000}" "${BENCH_WARM_UPS:-4}" "${BENCH_SECONDS:-10}" ;;
      *) echo "usage: scripts/dev.sh bench [smoke]" >&2; exit 2 ;;
    esac
    ;;
  chaos)
    minutes=${2:-5}
    ensure_jdk; ensure_redis; ensure_postgres
    # The packaged service is built again (Quarkus's augmentation, about 30 s) only if the sources changed since.
    if [ -f target/quarkus-app/quarkus-run.jar ] \
        && [ -z "$(find src/main pom.xml -newer target/quarkus-app/quarkus-run.jar -print -quit)" ]; then
      goals="test-compile failsafe:integration-test failsafe:verify"
    else
      goals="verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false"
    fi
    rm -f target/chaos/last-summary.md
    # shellcheck disable=SC2086 # $goals is a list of words
    ./mvnw -B $goals -Dit.test=ChaosRunIT -Dchaos.minutes="$minutes" ${CHAOS_SEED:+-Dchaos.seed="$CHAOS_SEED"} \
      ${CHAOS_FAULTS:+-Dchaos.faults="$CHAOS_FAULTS"} || status=$?
    [ -f target/chaos/last-summary.md ] && cat target/chaos/last-summary.md
    exit "${status:-0}"
    ;;
  native-check)
    ensure_jdk
    check_native_image .
    check_native_sources .
    ;;
  test)
    ensure_jdk; ensure_redis; ensure_postgres; ensure_kubectl; ensure_wrk; ensure_chromium
    start_native_checks
    # With the benchmarks at smoke size, so that they keep working (their figures mean little), and the 2-minute
    # chaos run (ChaosRunIT): all in one build and one failsafe run, on one packaged service.
    rm -f target/bench/results.tsv
    ./mvnw -B verify -Pbench -Dbench.tasks=500 -Dbench.warm-ups=1 -Dbench.seconds=2 -Dchaos.minutes=2
    cat target/chaos/last-summary.md
    run_peers 500 1 2
    bench_table 500
    finish_native_checks
    ;;
  *)
    echo "usage: scripts/dev.sh run|test|replicas [N]|native-check|bench [smoke]|chaos [minutes]" >&2
    exit 2
    ;;
esac
