#!/usr/bin/env bash
# GPU host side: runs the TensorRT 11 check and the doctor's command line (twice: plain, and with
# --builder-resource-dir so setInternalLibraryPath is exercised). Needs the TensorRT 11.2 stash
# (../shared/gpu/stage-trt112.sh, carried and stashed) and the app staged by stage-app.sh next to this file.
# Writes the outputs to $OUT (or ./gpu11-out).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-./gpu11-out}; mkdir -p "$O"
source .gpu/trt112/env.sh || exit 1
CP="$HERE/app/*"
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | tee "$O/gpu.txt"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" | tee -a "$O/gpu.txt"
ls -la /root/stash112/trt | tee -a "$O/gpu.txt"
"$JAVA" -version 2>&1 | tee -a "$O/gpu.txt"
"$JAVA" --enable-native-access=ALL-UNNAMED -cp "$CP" io.github.trtrace.examples.gpucheck.Trt11Check 2>&1 | tee "$O/trt11check.txt"
echo "== doctor CLI"
"$JAVA" --enable-native-access=ALL-UNNAMED -cp "$CP" io.github.trtrace.tensorrt.doctor.TensorRtDoctor 2>&1 | tee "$O/doctor-cli.txt"
echo "rc=${PIPESTATUS[0]}" | tee -a "$O/doctor-cli.txt"
echo "== doctor CLI --json --builder-resource-dir=/root/stash112/trt"
"$JAVA" --enable-native-access=ALL-UNNAMED -cp "$CP" io.github.trtrace.tensorrt.doctor.TensorRtDoctor --json \
  --builder-resource-dir=/root/stash112/trt 2>&1 | tee "$O/doctor-cli-dir.json"
echo "rc=${PIPESTATUS[0]}" | tee -a "$O/doctor-cli-dir.json"
