# Sourced by scripts/dev.sh: the test command, the whole suite with the benchmarks at smoke size and the native
# checks beside it. Expects from the caller: log(), the functions of setup.sh, native.sh and bench.sh (here in
# scripts/lib/), the project's root as the working directory, and `set -e` (the EXIT trap stops the checks).
# shellcheck shell=bash

run_tests() {
  ensure_jdk; ensure_redis; ensure_postgres; ensure_kubectl; ensure_wrk; ensure_chromium; ensure_redocly; ensure_typescript
  ensure_python
  start_native_checks
  # With the benchmarks at smoke size, so that they keep working (their figures mean little), and the 2-minute
  # chaos run (ChaosRunIT): all in one build and one failsafe run, on one packaged service.
  rm -f target/bench/results.tsv
  ./mvnw -B verify -Pbench -Dbench.tasks=500 -Dbench.warm-ups=1 -Dbench.seconds=2 -Dbench.max-drains=2 -Dbench.submit-windows=1 -Dbench.settle=false -Dchaos.minutes=2
  cat target/chaos/last-summary.md
  # The document clients are generated from, as the build wrote it: Redocly's recommended rules, no warning.
  "$REDOCLY" lint --max-problems 50 target/openapi/openapi.yaml
  # The Java client as users build it (its sources were compiled and run with the service's tests).
  ./mvnw -B -q -f clients/java/pom.xml package
  # Clients generated from that document as users generate them (clients/generated/README.md): the Java one compiled
  # and driven against the packaged service (GeneratedClientSmokeTest), the TypeScript one type-checked by tsc.
  ./mvnw -B -q -f clients/generated/pom.xml verify
  "$TSC" -p clients/generated
  run_peers 500 1 2 2
  bench_table 500
  finish_native_checks
}
