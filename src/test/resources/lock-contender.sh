#!/usr/bin/env bash
# A lock holder in a process of its own, speaking to Redis only through redis-cli and the service's own
# Lua scripts. Inside the critical section it logs "in <holder>" and "out <holder>" to a Redis list, so
# that the server itself records the order of all holders, whatever process they run in.
#
# usage: lock-contender.sh HOST PORT SCRIPT_DIR LOCK_KEY FENCE_KEY CHANNEL NAME LOG_KEY OWNER ROUNDS
set -euo pipefail
host=$1 port=$2 scripts=$3 lock=$4 fence=$5 channel=$6 name=$7 log=$8 owner=$9 rounds=${10}
cli() { redis-cli -h "$host" -p "$port" "$@"; }

done_rounds=0
while [ "$done_rounds" -lt "$rounds" ]; do
  mapfile -t reply < <(cli --eval "$scripts/acquire.lua" "$lock" "$fence" , "$owner" 30000)
  if [ "${reply[0]}" != 1 ]; then
    sleep 0.001 # this adversary polls; it only has to be correct, not polite
    continue
  fi
  holder="$owner:${reply[1]}"
  cli rpush "$log" "in $holder" >/dev/null
  cli rpush "$log" "out $holder" >/dev/null
  [ "$(cli --eval "$scripts/release.lua" "$lock" , "$holder" "$channel" "$name")" = 1 ] || {
    echo "release of $holder refused" >&2
    exit 1
  }
  done_rounds=$((done_rounds + 1))
done
