# GPU host side, from the project root, after the twelve .gpu/trt106/stash.sh carries and cp -r <app> /root/app
# (see trace-tensorrt/GPU-RESULTS.md): runs the GPU check on TensorRT 10.6; output and artifacts under $OUT.
set -o pipefail
source .gpu/trt106/env.sh || exit 3
# libcupti.so.12 and libnvToolsExt.so.1 staged by stage-app.sh (kernel records, NVTX ranges)
export LD_LIBRARY_PATH=/root/app/native:$LD_LIBRARY_PATH
export NCCL_NVLS_ENABLE=0
rm -rf /tmp/trtrace-artifacts && mkdir -p /tmp/trtrace-artifacts
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv | tee /tmp/trtrace-artifacts/nvidia-smi.csv
timeout ${CHECK_TIMEOUT:-480} $JAVA -Xmx24g --enable-native-access=ALL-UNNAMED -Dtrtrace.artifacts=/tmp/trtrace-artifacts \
  ${CHECK_OPTS:-} -cp '/root/app/*' io.github.trtrace.examples.gpucheck.GpuCheck > $OUT/gpucheck.txt 2>&1
rc=$?
tar czf $OUT/artifacts.tgz -C /tmp trtrace-artifacts
grep -E "^(== trtrace GPU check|-- |   (PASS|FAIL|SKIP))" $OUT/gpucheck.txt | tail -60
tail -45 $OUT/gpucheck.txt
echo "check rc=$rc"
