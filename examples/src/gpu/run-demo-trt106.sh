# GPU host side, from the carried checkout's root, after the twelve .gpu/trt106 stash.sh carries and the staged
# demo copied to /root/demo (see trace-tensorrt/GPU-RESULTS.md, "The demo on the H200"): runs the demo with its
# TensorRT backend (chosen automatically), then the tracing-overhead measurement on the same engine (loaded from
# the engine cache the demo built). Output under $OUT, written as it goes.
set -o pipefail
source .gpu/trt106/env.sh || exit 3
APP=${1:-/root/demo}
RUN=/tmp/trtrace-demo && rm -rf $RUN && mkdir -p $RUN/logs && cd $RUN
JOPTS="-Xmx24g --enable-native-access=ALL-UNNAMED -Dtrtrace.demo.engines=/root/engines -Dtrtrace.demo.logdir=$RUN/logs -Dorg.slf4j.simpleLogger.defaultLogLevel=error"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $OUT/nvidia-smi.txt
# an independent view of utilisation while everything runs (NVML through nvidia-smi, 200 ms)
nvidia-smi --query-gpu=timestamp,utilization.gpu,utilization.memory,memory.used,clocks.sm --format=csv -lms 200 \
  > $OUT/nvidia-smi-samples.csv 2>&1 &
SMI=$!
if [ -z "${SKIP_DEMO:-}" ]; then
  date -u +"demo start %FT%TZ" | tee $OUT/demo.txt
  timeout ${DEMO_TIMEOUT:-200} $JAVA $JOPTS -cp "$APP/*" io.github.trtrace.examples.demo.Demo \
    --log $RUN/logs/inference.log >> $OUT/demo.txt 2>&1
  echo "demo rc=$?" | tee -a $OUT/demo.txt
  tar czf $OUT/demo-logs.tgz -C $RUN logs
fi
date -u +"overhead start %FT%TZ" | tee $OUT/overhead-console.txt
timeout ${OVERHEAD_TIMEOUT:-330} $JAVA $JOPTS -cp "$APP/*" io.github.trtrace.examples.demo.GpuOverhead \
  $OUT/overhead.txt ${ROUNDS:-32} ${BLOCK:-10} ${QUADS:-0} >> $OUT/overhead-console.txt 2>&1
echo "overhead rc=$?" | tee -a $OUT/overhead-console.txt
kill $SMI
[ -f $OUT/demo.txt ] && grep -v -E '^(\[|WARN|INFO|DEBUG)' $OUT/demo.txt | tail -80
cat $OUT/overhead.txt
tail -5 $OUT/overhead-console.txt
