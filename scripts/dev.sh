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
#
# Its parts are in scripts/lib/ (setup, native checks, benchmarks, the service, chaos, tests); this file keeps the
# usage and the dispatch of the subcommands.
# shellcheck source-path=SCRIPTDIR/..  # (for shellcheck -x: the lib files below, from any directory)
set -euo pipefail

cd "$(dirname "$0")/.."

log() { printf '[dev] %s\n' "$*" >&2; }

# After the cd above, these paths are the script's own scripts/lib/, whatever the directory dev.sh was run from.
. scripts/lib/setup.sh
. scripts/lib/native.sh
. scripts/lib/bench.sh
. scripts/lib/service.sh
. scripts/lib/chaos.sh
. scripts/lib/test.sh

case "${1:-}" in
  run) run_service ;;
  replicas) run_replicas "${2:-3}" ;;
  bench)
    ensure_jdk; ensure_redis; ensure_postgres; ensure_wrk
    case "${2:-full}" in
      smoke) run_bench 500 1 2 2 1 ;;   # keeps the benchmarks working (CI); its figures mean little
      full) run_bench "${BENCH_TASKS:-20000}" "${BENCH_WARM_UPS:-4}" "${BENCH_SECONDS:-10}" "${BENCH_MAX_DRAINS:-20}" \
        "${BENCH_SUBMIT_WINDOWS:-12}" ;;
      *) echo "usage: scripts/dev.sh bench [smoke]" >&2; exit 2 ;;
    esac
    ;;
  chaos) run_chaos "${2:-5}" ;;
  native-check)
    ensure_jdk
    check_native_image .
    check_native_sources .
    ;;
  test) run_tests ;;
  *)
    echo "usage: scripts/dev.sh run|test|replicas [N]|native-check|bench [smoke]|chaos [minutes]" >&2
    exit 2
    ;;
esac
