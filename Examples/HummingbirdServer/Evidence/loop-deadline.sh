source "$(dirname "$0")/hbkv-loops.sh"
# Async start-up hang (kv.warmup never answers) past the 1.5 s deadline => SIGABRT, launch_hang,
# thread_dump of every thread, crash cause launch-hang, and the next launch counts it (count 1).
RUNS=${RUNS:-20}
for P in before-group before-server-starts; do
  ok=0
  for n in $(seq 1 $RUNS); do
    D=/tmp/hbl-deadline-$P-$n; rm -rf $D
    t0=$(date +%s%N)
    start $D $P "kv.warmup=return(ETIMEDOUT)" $((19600 + n)) 1
    wait $PID; rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    E=$D/events-1.ndjson
    dumps=$(grep -c '"event":"thread_dump"' $E)
    start $D $P "" $((19700 + n)) 2
    wait_event $D/events-2.ndjson launching_finished 5
    kill -TERM $PID; wait $PID
    if [ $rc = 134 ] && grep -q '"event":"launch_hang"' $E && [ "$dumps" -ge 2 ] &&
       grep '"event":"crash"' $E | grep -q '"cause":"launch-hang"' &&
       grep '"event":"launch"' $D/events-2.ndjson | grep -q '"count":1,'; then
      ok=$((ok + 1)); echo "run $n: exit $rc after ${ms} ms, $dumps thread dumps" >> /tmp/deadline-detail-$P.txt; rm -rf $D
    else
      echo "run $n: rc=$rc ms=$ms dumps=$dumps"
    fi
  done
  echo "deadline-hang $P $ok/$RUNS"
done
