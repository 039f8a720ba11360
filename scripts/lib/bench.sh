# Sourced by scripts/dev.sh: the benchmarks (Taskfence's, Maven profile bench, then the peers' in bench/), as a table.
# Expects from the caller: log(), the project's root as the working directory, JAVA_HOME (ensure_jdk), Redis and
# PostgreSQL up (ensure_redis, ensure_postgres), and `set -e`.
# shellcheck shell=bash

# The figures the benchmarks left in target/bench/results.tsv (key<TAB>value), as a Markdown table.
bench_table() {
  awk -F '\t' -v tasks="$1" '
    { v[$1] = $2 }
    function f(k, d) { return (k in v) ? sprintf("%.*f", d, v[k]) : "n/a" }
    function ratio(a, b) { return (a in v && b in v && v[b] > 0) ? sprintf("%.2f×", v[a] / v[b]) : "" }
    function converge(side,  d) {
      d = "drain." side ".drains"
      if (!(d in v)) return "n/a"
      return ("drain." side ".converge_tasks" in v) ? sprintf("%d (%d)", v["drain." side ".converge_tasks"], v[d]) \
        : sprintf("not within %d drains", v[d])
    }
    function curve(prefix,  k, line) { # the figures under prefix.1, prefix.2, ... as one line
      for (k = 1; (prefix k) in v; k++) line = line (k > 1 ? ", " : "") sprintf("%.0f", v[prefix k])
      return (line == "") ? "n/a" : line
    }
    END {
      print "| measure | Taskfence | peer or ceiling | Taskfence ÷ peer |"
      print "|---|---|---|---|"
      printf "| drain %d pre-loaded `noop` tasks, 3 replicas × 8 workers, 24 claimed ahead, steady: drained again and again until two drains in a row are within 5 %%, their mean (tasks/s) | %s | db-scheduler 16.12, lock-and-fetch, 3 × 8: %s | %s |\n", tasks, f("drain.taskfence", 0), f("drain.dbscheduler", 0), ratio("drain.taskfence", "drain.dbscheduler")
      printf "| the same, cold: the first drain of replicas (and peer) just started (tasks/s) | %s | db-scheduler, first drain of its JVM: %s | %s |\n", f("drain.taskfence.cold", 0), f("drain.dbscheduler.cold", 0), ratio("drain.taskfence.cold", "drain.dbscheduler.cold")
      printf "| the same, after 4: the 5th drain (tasks/s) | %s | db-scheduler, its 5th: %s | %s |\n", f("drain.taskfence.after4", 0), f("drain.dbscheduler.after4", 0), ratio("drain.taskfence.after4", "drain.dbscheduler.after4")
      printf "| tasks drained until two drains in a row were within 5 %% (drains) | %s | db-scheduler: %s | |\n", converge("taskfence"), converge("dbscheduler")
      printf "| the same, warm, %d tasks, after the curve (tasks/s) | %s | db-scheduler, the same: %s | %s |\n", 5 * tasks, f("drain.taskfence.large", 0), f("drain.dbscheduler.large", 0), ratio("drain.taskfence.large", "drain.dbscheduler.large")
      printf "| drain with dependencies, after the large one: %d chains of 2 and a fan-in of %d, each dependent released by the follow-ups job (tasks/s) | %s | the plain steady drain above: %s | %s |\n", tasks / 2, tasks / 2, f("drain.dependencies", 0), f("drain.taskfence", 0), ratio("drain.dependencies", "drain.taskfence")
      printf "| one more drain after the curve, per task: PostgreSQL CPU / CPU of the 3 replicas / of which their JIT compiler threads (µs) | %s / %s / %s | | |\n", f("drain.per_task.postgres_cpu_us", 0), f("drain.per_task.replicas_cpu_us", 0), f("drain.per_task.replicas_jit_cpu_us", 0)
      printf "| the same, counted until the statistics settled (11 s idle after the drain) (µs) | %s / %s / %s | | |\n", f("drain.per_task.postgres_cpu_us_settled", 0), f("drain.per_task.replicas_cpu_us_settled", 0), f("drain.per_task.replicas_jit_cpu_us_settled", 0)
      printf "| that drain, per task: WAL bytes / WAL records | %s / %s | | |\n", f("drain.per_task.wal_bytes", 0), f("drain.per_task.wal_records", 1)
      printf "| that drain: row updates of the task table per task, and their HOT share | %s, %s | | |\n", f("drain.per_task.row_updates", 2), f("drain.per_task.hot_ratio", 2)
      printf "| REST submit, one task a request, wrk 2 threads × 32 connections (requests/s) | %s | trivial endpoint, same replica: %s | %s |\n", f("submit.single", 0), f("submit.trivial", 0), ratio("submit.single", "submit.trivial")
      printf "| the same against the durable single-insert rate of this PostgreSQL (inserts/s) | %s | pgbench, one task-shaped INSERT a transaction, 32 clients: %s | %s |\n", f("submit.single", 0), f("submit.pgbench_insert", 0), ratio("submit.single", "submit.pgbench_insert")
      printf "| REST submit, the first 5 s from the replica ready (requests/s) | %s | pgbench, as above: %s | %s |\n", f("submit.single.window.1", 0), f("submit.pgbench_insert", 0), ratio("submit.single.window.1", "submit.pgbench_insert")
      printf "| the same, against the trivial endpoint (requests/s) | %s | trivial endpoint, as above: %s | %s |\n", f("submit.single.window.1", 0), f("submit.trivial", 0), ratio("submit.single.window.1", "submit.trivial")
      printf "| REST bulk submit, 1,000 tasks a request (tasks/s) | %s | | |\n", f("submit.bulk", 0)
      printf "| submit → start on an idle 3-replica cluster, p50 / p99 (ms, PostgreSQL clock) | %s / %s | | |\n", f("latency.p50", 1), f("latency.p99", 1)
      split("1 8 64", t, " ")
      for (i = 1; i <= 3; i++) printf "| lock acquire + release, %d thread%s (pairs/s) | %s | Redisson 4.7 `RLock`: %s | %s |\n", t[i], t[i] == 1 ? "" : "s", f("lock.taskfence." t[i], 0), f("lock.redisson." t[i], 0), ratio("lock.taskfence." t[i], "lock.redisson." t[i])
      print ""
      print "Drain curve, each drain of " tasks " tasks in turn (tasks/s): Taskfence " curve("drain.taskfence.curve.") "; db-scheduler " curve("drain.dbscheduler.curve.") "."
      print ""
      print "REST submit curve, 5 s windows from the replica ready (requests/s): " curve("submit.single.window.") "."
    }' target/bench/results.tsv
}

# run_bench TASKS WARM_UPS SECONDS MAX_DRAINS SUBMIT_WINDOWS: Taskfence's benchmarks (failsafe, profile bench), then
# the peers' (bench/). The drains of both sides run until two in a row are within 5 %, MAX_DRAINS at most; WARM_UPS
# is the latency benchmark's (rounds of 100 submissions); SUBMIT_WINDOWS the 5 s windows of REST submit's curve.
run_bench() {
  local tasks=$1 warm_ups=$2 seconds=$3 max_drains=$4 submit_windows=$5
  local as_shipped=()
  rm -f target/bench/results.tsv
  # The service as scripts/dev.sh run ships it: packaged with the JDK's AOT cache (JDK 25+), which the replicas start
  # with; the bench's own build then leaves that jar as it is. BENCH_AOT=off measures the plain jar.
  if [ "${BENCH_AOT:-on}" != off ]; then
    build_service
    if [ -f target/quarkus-app/app.aot ] && [ "$(java_major "$JAVA_HOME")" -ge 25 ] 2>/dev/null; then
      as_shipped=(-Dquarkus.build.skip=true -Dbench.aot-cache=target/quarkus-app/app.aot)
    fi
  fi
  if [ ${#as_shipped[@]} -gt 0 ]; then log "Taskfence's replicas start with the AOT cache"; else log "Taskfence's replicas start without an AOT cache"; fi
  # BENCH_JVM_OPTIONS reaches every JVM of both sides: the replicas, the JVM of the lock benchmark, the peers' JVM.
  if [ -n "${BENCH_JVM_OPTIONS:-}" ]; then export JAVA_TOOL_OPTIONS="$BENCH_JVM_OPTIONS"; fi
  ./mvnw -B -q -Pbench verify -Dtest='io.taskfence.bench.*Bench' -Dit.test='io.taskfence.bench.*BenchIT' \
    -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
    -Dbench.tasks="$tasks" -Dbench.warm-ups="$warm_ups" -Dbench.seconds="$seconds" -Dbench.jfr="${BENCH_JFR:-}" \
    -Dbench.max-drains="$max_drains" -Dbench.submit-windows="$submit_windows" -Dfailsafe.forks=1 "${as_shipped[@]}" \
    -Dbench.replica-jvm-options="${BENCH_REPLICA_JVM_OPTIONS:-}"
  run_peers "$tasks" "$warm_ups" "$seconds" "$max_drains"
  bench_table "$tasks"
}

# run_peers TASKS WARM_UPS SECONDS [MAX_DRAINS]: the peers' benchmarks (bench/) and pgbench, adding to
# target/bench/results.tsv. WARM_UPS is not used (the peers have no latency benchmark, and their drains run until they
# converge, MAX_DRAINS at most, 20 by default): it stays for the callers' argument order.
run_peers() {
  ./mvnw -B -q -f bench/pom.xml package -DskipTests
  "$JAVA_HOME/bin/java" -cp "$(cat bench/target/classpath.txt):bench/target/classes" io.taskfence.bench.peers.Peers \
    --tasks "$1" --max-drains "${4:-20}" --seconds "$3" --results target/bench/results.tsv
  run_pgbench "$3"
  log "on $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(psql -h 127.0.0.1 \
    -U postgres -d postgres -tAc 'show server_version' | cut -d' ' -f1) PostgreSQL, Redis $(redis-server --version \
    | sed -E 's/.*v=([^ ]+).*/\1/'), JDK $("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java.version = //p')"
}

# The ceiling of REST submit: how many durable single-row inserts of a task-shaped row this PostgreSQL commits a
# second (pgbench, 32 clients, one INSERT a transaction), into a schema of its own that is dropped afterwards.
run_pgbench() { # run_pgbench SECONDS
  local schema="taskfence_pgbench_$$" script tps
  script=$(mktemp)
  psql -h 127.0.0.1 -U postgres -d test -qX -v ON_ERROR_STOP=1 -c "create schema $schema" -c "create table $schema.tasks (
    id uuid primary key, type text not null, payload jsonb not null, status text not null default 'PENDING',
    attempt int not null default 0, max_attempts int not null, priority int not null default 0,
    run_at timestamptz not null default now(), created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(), owner text)"
  echo "insert into $schema.tasks (id, type, payload, max_attempts) values (gen_random_uuid(), 'noop', '{\"n\": 1}', 5);" \
    > "$script"
  tps=$(pgbench -h 127.0.0.1 -U postgres -n -c 32 -j 2 -T "$1" -f "$script" test 2>/dev/null \
    | sed -n 's/^tps = \([0-9.]*\) .*/\1/p') || true
  PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -U postgres -d test -qX -c "drop schema $schema cascade"
  rm -f "$script"
  log "pgbench: ${tps:-no figure} single-insert transactions/s (32 clients, $1 s)"
  if [ -n "$tps" ]; then
    printf 'submit.pgbench_insert\t%s\n' "$tps" >> target/bench/results.tsv
  fi
}
