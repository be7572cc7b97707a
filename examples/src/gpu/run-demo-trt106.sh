# GPU host side, from the carried checkout's root, after the twelve .gpu/trt106 stash.sh carries and the staged
# demo copied to /root/demo (see trace-tensorrt/GPU-RESULTS.md, "The demo on the H200"): runs the demo with its
# TensorRT backend (chosen automatically), serving by continuous batching (one engine launch a step for up to 16
# requests); with OVERHEAD=1 then the tracing-overhead measurement (requests served alone on the same engine,
# loaded from the engine cache the demo built). Output under $OUT, written as it goes.
# DEMO_MODEL=large|small (default large: 414 M parameters; small: the GPU check's 42 M), DEMO_OPT=0|1 (builder
# optimisation level, default 1), DEMO_TIMEOUT seconds (default 230), DEMO_ARGS (extra Demo options, e.g.
# "--requests 200"), DEMO_JOPTS (extra JVM options, e.g. "-Dtrtrace.kernels.sample=0.05": kernel records for 5 % of
# the launches, kernels lines in the launch log; "-Dtrtrace.demo.trt.profile=0.05": per-layer times of 5 % of the
# launches in their launch lines; examples/src/gpu/layer-scaling.py reads either from the saved launch log).
set -o pipefail
source .gpu/trt106/env.sh || exit 3
APP=${1:-/root/demo}
# The 12.6 preset loads libcupti by name from its link paths, /usr/local/cuda-12.6/extras/CUPTI/lib64/ first, then
# /usr/local/cuda/...: on this host (CUDA 13.0 installed) that found CUDA 13's libcupti while the preset's JNI library
# took the staged libcupti.so.12, two CUPTIs in one process, and the demo with kernel records died in CUPTI's thread
# (2026-12-02, run 20's demo). Put the staged one where a CUDA 12.6 install has it.
if [ -f $APP/native/libcupti.so.12 ]; then
  mkdir -p /usr/local/cuda-12.6/extras/CUPTI/lib64 && cp $APP/native/libcupti.so.12 /usr/local/cuda-12.6/extras/CUPTI/lib64/
  export LD_LIBRARY_PATH=$APP/native:$LD_LIBRARY_PATH
fi
RUN=/tmp/trtrace-demo && rm -rf $RUN && mkdir -p $RUN/logs && cd $RUN
JOPTS="-Xmx24g --enable-native-access=ALL-UNNAMED -Dtrtrace.demo.engines=/root/engines -Dtrtrace.demo.logdir=$RUN/logs -Dorg.slf4j.simpleLogger.defaultLogLevel=error -Dtrtrace.demo.trt.model=${DEMO_MODEL:-large} -Dtrtrace.demo.trt.opt=${DEMO_OPT:-1} ${DEMO_JOPTS:-}"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $OUT/nvidia-smi.txt
# an independent view of utilisation while everything runs (NVML through nvidia-smi, 200 ms)
nvidia-smi --query-gpu=timestamp,utilization.gpu,utilization.memory,memory.used,clocks.sm --format=csv -lms 200 \
  > $OUT/nvidia-smi-samples.csv 2>&1 &
SMI=$!
if [ -z "${SKIP_DEMO:-}" ]; then
  date -u +"demo start %FT%TZ" | tee $OUT/demo.txt
  timeout ${DEMO_TIMEOUT:-230} $JAVA $JOPTS -cp "$APP/*" io.github.trtrace.examples.demo.Demo \
    --log $RUN/logs/inference.log ${DEMO_ARGS:-} >> $OUT/demo.txt 2>&1
  echo "demo rc=$?" | tee -a $OUT/demo.txt
  tar czf $OUT/demo-logs.tgz -C $RUN logs
fi
if [ -n "${OVERHEAD:-}" ]; then
  date -u +"overhead start %FT%TZ" | tee $OUT/overhead-console.txt
  timeout ${OVERHEAD_TIMEOUT:-330} $JAVA $JOPTS -cp "$APP/*" io.github.trtrace.examples.demo.GpuOverhead \
    $OUT/overhead.txt ${ROUNDS:-32} ${BLOCK:-10} ${QUADS:-0} >> $OUT/overhead-console.txt 2>&1
  echo "overhead rc=$?" | tee -a $OUT/overhead-console.txt
fi
kill $SMI
[ -f $OUT/demo.txt ] && grep -v -E '^(\[|WARN|INFO|DEBUG)' $OUT/demo.txt | tail -80
# what proves the batched serving: the backend line, then trtrace stats on the records and the launch log together
# (its Batching section: mixed and decode-only steps, and the conservation check: every launch's members' share_ms
# add up to its CUDA-event gpu_ms), the first launch-log lines
[ -f $OUT/demo.txt ] && grep -E '^backend: |^listening on |^batching: |^load done: ' $OUT/demo.txt
if [ -f $RUN/logs/launches.log ]; then
  $JAVA -cp "$APP/*" io.github.trtrace.cli.TrtraceCli stats $RUN/logs/inference.log $RUN/logs/launches.log \
    > $OUT/stats.txt 2>&1
  sed -n '/^Batching/,$p' $OUT/stats.txt | head -20
  echo "launch log: $(wc -l < $RUN/logs/launches.log) launches"; head -c 1500 $RUN/logs/launches.log; echo
fi
[ -f $OUT/overhead.txt ] && cat $OUT/overhead.txt && tail -5 $OUT/overhead-console.txt
true
