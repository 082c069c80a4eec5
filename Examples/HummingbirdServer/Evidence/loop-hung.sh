source "$(dirname "$0")/hbkv-loops.sh"
# SIGTERM to a hung launch (kv.load=hang), SIGKILL 0.5 s later if still alive (a stop timeout);
# the next launch must see count 0 and the stopped launch ignored with reason "terminated".
for P in before-group before-server-starts; do
  ok=0; killed=0; termed=0
  for n in $(seq 1 100); do
    D=/tmp/hbl-hung-$P-$n; rm -rf $D
    start $D $P "kv.load=hang" $((19200 + n)) 1
    wait_event $D/events-1.ndjson failpoint 5
    kill -TERM $PID
    for i in $(seq 1 50); do kill -0 $PID 2>/dev/null || break; sleep 0.01; done
    if kill -0 $PID 2>/dev/null; then kill -KILL $PID; killed=$((killed + 1)); else termed=$((termed + 1)); fi
    wait $PID 2>/dev/null
    hung_pid=$PID
    start $D $P "" $((19400 + n)) 2
    wait_event $D/events-2.ndjson launching_finished 5
    kill -TERM $PID; wait $PID; rc=$?
    launch=$(grep '"event":"launch"' $D/events-2.ndjson)
    if [ "$rc" = 0 ] && echo "$launch" | grep -q '"count":0,' &&
       echo "$launch" | grep -q "\"ignored\":\[{\"pid\":$hung_pid,\"reason\":\"terminated\"}\]" &&
       grep -q stop_requested $D/events-1.ndjson && ! grep -q launch_hang $D/events-1.ndjson; then
      ok=$((ok + 1)); rm -rf $D
    else
      echo "run $n: rc=$rc launch=$launch"
    fi
  done
  echo "hung-sigterm $P $ok/100 (ended by SIGTERM: $termed, SIGKILLed after 0.5 s: $killed)"
done
