# Helpers for the evidence loops: the same environment the chaos harness gives a launch.
HBKV=${HBKV:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.build/debug/hbkv}
export SWIFT_BACKTRACE=enable=no
# start DIR PLACEMENT FAILPOINTS PORT -> starts hbkv in the background, sets PID
start() {
  local dir=$1
  mkdir -p "$dir/state"
  CHAOS_STATE_DIR="$dir/state" CHAOS_EVENTS="$dir/events-$5.ndjson" CHAOS_FAILPOINTS="$3" CHAOS_PORT=$4 \
    HBKV_DATA_DIR="$dir/data" HBKV_LAUNCH=$2 "$HBKV" >>"$dir/stderr.txt" 2>&1 &
  PID=$!
}
# wait_event FILE NAME [SECONDS] -> 0 once an event named NAME is in FILE
wait_event() {
  local limit=$(( ${3:-5} * 100 ))
  for ((i = 0; i < limit; i++)); do
    grep -q "\"event\":\"$2\"" "$1" 2>/dev/null && return 0
    sleep 0.01
  done
  return 1
}
