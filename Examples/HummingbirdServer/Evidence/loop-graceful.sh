source "$(dirname "$0")/hbkv-loops.sh"
# SIGTERM after launch => graceful shutdown, exit 0 (100 runs per placement)
for P in before-group before-server-starts; do
  ok=0
  for n in $(seq 1 100); do
    D=/tmp/hbl-graceful-$P-$n; rm -rf $D
    start $D $P "" $((19000 + n)) 1
    if wait_event $D/events-1.ndjson launching_finished 5 && curl -sf 127.0.0.1:$((19000 + n))/health >/dev/null; then
      kill -TERM $PID; wait $PID; rc=$?
    else
      kill -KILL $PID; wait $PID; rc=fail
    fi
    [ "$rc" = 0 ] && ! grep -q stop_requested $D/events-1.ndjson && ok=$((ok + 1)) || echo "run $n: rc=$rc"
    [ "$rc" = 0 ] && rm -rf $D
  done
  echo "graceful $P $ok/100"
done
