source "$(dirname "$0")/hbkv-loops.sh"
# A clean launch with the 1.5 s deadline set stays up 2 s past its start, answers HTTP after
# that, and SIGTERM then ends it with exit 0: never killed, no launch_hang (100 runs).
P=$1; base=$2; ok=0
for n in $(seq 1 100); do
  D=/tmp/hbl-clean-$P-$n; rm -rf $D
  start $D $P "" $((base + n)) 1
  sleep 2
  if kill -0 $PID 2>/dev/null && curl -sf 127.0.0.1:$((base + n))/health >/dev/null; then
    kill -TERM $PID; wait $PID; rc=$?
  else
    wait $PID; rc="died:$?"
  fi
  if [ "$rc" = 0 ] && grep -q launching_finished $D/events-1.ndjson && ! grep -q -e launch_hang -e thread_dump $D/events-1.ndjson; then
    ok=$((ok + 1)); rm -rf $D
  else
    echo "run $n: rc=$rc"
  fi
done
echo "clean-with-deadline $P $ok/100"
