# Sourced by scripts/dev.sh: the native checks, for `native-check` and for the test command (beside the tests).
# Expects from the caller: log(), the project's root as the working directory, JAVA_HOME (ensure_jdk), `set -e`;
# start_native_checks sets the script's EXIT trap (stop_native_checks), so that they stop if the script ends early.
# shellcheck shell=bash

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
  for type in api.problem.Problem 'api.problem.Problem$Violation' task.Task task.query.TaskPage 'api.StatsResource$Stats' lock.LockHolder \
    api.tasks.BulkRequest api.tasks.BulkTask api.tasks.BulkAnswer 'api.tasks.BulkAnswer$Item' api.tasks.CallbackRequest \
    task.batch.BatchView 'api.batches.BatchResource$BatchList' api.actions.ActionRequest task.action.ActionView \
    task.query.TaskCount; do
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
  cp -r pom.xml mvnw .mvn src clients "$NATIVE_PROJECT/" # clients/java: the tests compile its sources
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
