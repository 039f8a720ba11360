# Sourced by scripts/dev.sh: the long fault run (ChaosRunIT) of `chaos [minutes]`; it ends the script with Maven's
# status. Expects from the caller: the functions of scripts/lib/setup.sh, the project's root as the working
# directory, and `set -e`.
# shellcheck shell=bash

# minutes, goals and status stay global, as they were when this was the body of the chaos case.
run_chaos() { # run_chaos MINUTES: 3 replicas under mixed load and faults, then the summary; exits
  minutes=$1
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
}
