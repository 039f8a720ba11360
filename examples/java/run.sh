#!/usr/bin/env bash
# Runs examples/java/ResizeWorker.java against the service of scripts/dev.sh run: picks a JDK >= 21 as
# scripts/dev.sh does, builds the Java client (clients/java) and starts the example as a single-file program on its
# classpath. Arguments go to the example (--demo N submits N tasks first). From the repository's root:
#   examples/java/run.sh --demo 5
set -euo pipefail
cd "$(dirname "$0")/../.."
log() { printf '[example] %s\n' "$*" >&2; }
. scripts/lib/setup.sh
ensure_jdk
./mvnw -B -q -f clients/java/pom.xml package
exec java -cp "clients/java/target/classes:$(cat clients/java/target/classpath.txt)" examples/java/ResizeWorker.java "$@"
