# Sourced by scripts/dev.sh: the packaged service run locally, alone (`run`) or as N replicas (`replicas`), with
# the settings of a local trial. Expects from the caller: log(), the functions of scripts/lib/setup.sh, the
# project's root as the working directory, and `set -e`.
# shellcheck shell=bash

readable_logs() { # the packaged service logs JSON (prod profile) for collectors; people at a terminal read text
  export QUARKUS_LOG_CONSOLE_JSON_ENABLED="${QUARKUS_LOG_CONSOLE_JSON_ENABLED:-false}"
}

demo_handlers() { # a local trial runs the README's examples, which use sleep and flaky (off in production)
  export TASKFENCE_HANDLERS_DEMO_ENABLED="${TASKFENCE_HANDLERS_DEMO_ENABLED:-true}"
}

trial_key() { # a local trial needs API keys the prod profile accepts: make them up unless some are set
  # The examples' remote type (examples/python, examples/java): run by workers outside the service.
  export TASKFENCE_TYPES_RESIZE_REMOTE="${TASKFENCE_TYPES_RESIZE_REMOTE:-true}"
  if env | grep -q '^TASKFENCE_AUTH_KEYS_[A-Z0-9]*_SECRET='; then
    return
  fi
  TASKFENCE_AUTH_KEYS_DEV_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  TASKFENCE_AUTH_KEYS_DEVWORKER_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  export TASKFENCE_AUTH_KEYS_DEV_SECRET TASKFENCE_AUTH_KEYS_DEV_ROLE=admin
  export TASKFENCE_AUTH_KEYS_DEVWORKER_SECRET TASKFENCE_AUTH_KEYS_DEVWORKER_ROLE=worker
  export TASKFENCE_AUTH_KEYS_DEVWORKER_TYPES=resize
  log "admin API key for this run (key name dev): $TASKFENCE_AUTH_KEYS_DEV_SECRET"
  log "worker key for the remote type resize (key name devworker): $TASKFENCE_AUTH_KEYS_DEVWORKER_SECRET"
  # Where the examples find them (git-ignored, like all of target/).
  mkdir -p target
  umask 077
  printf 'TASKFENCE_KEY=%s\nTASKFENCE_WORKER_KEY=%s\n' "$TASKFENCE_AUTH_KEYS_DEV_SECRET" \
    "$TASKFENCE_AUTH_KEYS_DEVWORKER_SECRET" > target/trial-keys.env
  umask 022
}

# The JDK's AOT cache (JEP 483/514/515: classes loaded and linked, method profiles) halves the start-up and speeds
# the first requests up (docs/performance.md, "Start-up: the AOT cache"). Maven profile aot: Quarkus
# packages the aot-jar and records it while PackagedApplicationIT's workload runs against it (about a minute more
# than a plain package), leaving target/quarkus-app/app.aot. JDK 25+ only: older JVMs refuse -XX:AOTCache.
# TASKFENCE_AOT=off builds without it; a failed training run falls back to the plain package. The test starts the
# jar with this environment: without the TASKFENCE_ and QUARKUS_ variables of a local trial (demo types, keys,
# ports), which would change what it checks.
build_service() {
  if [ "${TASKFENCE_AOT:-on}" != off ] && [ "$(java_major "$JAVA_HOME")" -ge 25 ] 2>/dev/null; then
    local unset=()
    mapfile -t unset < <(env | sed -n 's/^\(\(TASKFENCE\|QUARKUS\)_[A-Za-z0-9_]*\)=.*/-u\n\1/p')
    if env "${unset[@]}" ./mvnw -B -q -Paot verify; then
      return
    fi
    log "the AOT cache's training run failed (its output is above); building without the cache"
  fi
  ./mvnw -B -q package -DskipTests
}

# The cache's option, when the build left one. A cache made by another JDK build or for other jars costs an
# [error][aot] line at start and nothing else: the JVM starts without it (AOTMode=auto, the default).
aot_cache() {
  if [ -f target/quarkus-app/app.aot ] && [ "$(java_major "$JAVA_HOME")" -ge 25 ] 2>/dev/null; then
    echo "-XX:AOTCache=target/quarkus-app/app.aot"
  fi
}

run_service() { # build and start the service on http://localhost:8080 (it takes the script's process)
  ensure_jdk; ensure_redis; ensure_postgres; readable_logs; demo_handlers; trial_key
  build_service
  # shellcheck disable=SC2046  # aot_cache prints one option or nothing
  exec java $(aot_cache) -jar target/quarkus-app/quarkus-run.jar
}

# count, pids and i stay global, as they were: the EXIT trap reads pids after this function has returned.
run_replicas() { # run_replicas N: build and start N replicas on ports 8081.., until Ctrl-C
  count=$1
  ensure_jdk; ensure_redis; ensure_postgres; readable_logs; demo_handlers; trial_key
  build_service
  mkdir -p target/replicas-local
  pids=()
  trap 'kill "${pids[@]}" 2>/dev/null; wait' EXIT INT TERM
  for i in $(seq 1 "$count"); do
    # shellcheck disable=SC2046  # aot_cache prints one option or nothing
    QUARKUS_HTTP_PORT=$((8080 + i)) QUARKUS_MANAGEMENT_PORT=$((9000 + i)) TASKFENCE_REPLICA_ID="replica-$i" \
      java $(aot_cache) -jar target/quarkus-app/quarkus-run.jar >"target/replicas-local/replica-$i.log" 2>&1 &
    pids+=($!)
    log "replica-$i on http://localhost:$((8080 + i)) (health, metrics: $((9000 + i))), log in target/replicas-local/replica-$i.log"
  done
  log "Ctrl-C stops them all"
  wait
}
