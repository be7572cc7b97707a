#!/usr/bin/env bash
# The TensorRT 10.6 route of ../shared/gpu/stage-trt106.sh with gzip instead of xz: the same carry layout
# (.gpu/trt106/c00 ... cNN, stash.sh, env.sh; used exactly as that README says), staged in about 3 minutes on a
# busy 2-core machine where xz -6 of the 1.43 GB builder resource took over half an hour (measured 2026-12-02:
# libnvinfer.so.10 233 MB -> 95 MB with gzip -4 in 20 s). gzip is on every GPU host image; the parts are larger
# (48 MB parts, so a carry stays under the 64 MiB limit with the work tree beside it: about 25 carries instead of 11), which costs seconds of device time, not minutes.
# Usage: examples/src/gpu-check/trt10/stage-trt106-gzip.sh [project-root]
set -euo pipefail
ROOT=$(cd "${1:-.}" && pwd)
OUTD=$ROOT/.gpu/trt106
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/trace-gpu/trt106gz
M2=${M2_REPO:-$HOME/.m2/repository}
JDK=${JDK25:-$(ls -d /usr/lib/jvm/*25* 2>/dev/null | head -1)}
TRT_JAR=$M2/org/bytedeco/tensorrt/10.6-1.5.11/tensorrt-10.6-1.5.11-linux-x86_64-redist.jar
CUDA_JAR=$M2/org/bytedeco/cuda/12.6-9.5-1.5.11/cuda-12.6-9.5-1.5.11-linux-x86_64-redist.jar
mkdir -p "$CACHE"
[ -f "$TRT_JAR" ] || mvn -q dependency:get -Dartifact=org.bytedeco:tensorrt:10.6-1.5.11:jar:linux-x86_64-redist -Dtransitive=false
[ -f "$CUDA_JAR" ] || mvn -q dependency:get -Dartifact=org.bytedeco:cuda:12.6-9.5-1.5.11:jar:linux-x86_64-redist -Dtransitive=false
L=org/bytedeco/tensorrt/linux-x86_64
[ -f "$CACHE/nv.gz" ] || { unzip -p "$TRT_JAR" $L/libnvinfer.so.10 | gzip -4 > "$CACHE/nv.gz.tmp" && mv "$CACHE/nv.gz.tmp" "$CACHE/nv.gz"; }
[ -f "$CACHE/br.gz" ] || { unzip -p "$TRT_JAR" $L/libnvinfer_builder_resource.so.10.6.0 | gzip -4 > "$CACHE/br.gz.tmp" && mv "$CACHE/br.gz.tmp" "$CACHE/br.gz"; }
[ -f "$CACHE/libcudart.so.12" ] || unzip -p "$CUDA_JAR" org/bytedeco/cuda/linux-x86_64/libcudart.so.12 > "$CACHE/libcudart.so.12"
# Empty stand-ins for the CUDA 12 libraries that the inherited cuBLAS/cuDNN/NVRTC JNI libraries link (see the
# shared script: TensorRT 10.6 calls none of them). GPU host only.
if [ ! -d "$CACHE/stubs" ]; then
  mkdir -p "$CACHE/stubs.tmp"
  for n in libcublas.so.12 libcublasLt.so.12 libnvrtc.so.12 libcudnn.so.9 libcudnn_cnn.so.9 libcudnn_adv.so.9 libcudnn_ops.so.9 libcudnn_graph.so.9; do
    s=stub_$(echo "$n" | tr -c 'a-zA-Z0-9\n' _)
    echo "$n { global: $s; local: *; };" > "$CACHE/stubs.tmp/$n.map"
    echo "int $s(void) { return 0; }" > "$CACHE/stubs.tmp/$n.c"
    gcc -shared -fPIC -o "$CACHE/stubs.tmp/$n" "$CACHE/stubs.tmp/$n.c" -Wl,-soname,"$n" -Wl,--version-script="$CACHE/stubs.tmp/$n.map"
    rm "$CACHE/stubs.tmp/$n.c" "$CACHE/stubs.tmp/$n.map"
  done
  mv "$CACHE/stubs.tmp" "$CACHE/stubs"
fi
if [ ! -f "$CACHE/jre25.tgz" ]; then
  rm -rf "$CACHE/jre25"
  "$JDK/bin/jlink" --add-modules java.base,java.logging,jdk.unsupported,java.management,jdk.httpserver,java.net.http,jdk.crypto.ec,jdk.management \
    --strip-debug --no-header-files --no-man-pages --compress=zip-9 --output "$CACHE/jre25"
  tar czf "$CACHE/jre25.tgz" -C "$CACHE" jre25
fi
rm -rf "$OUTD" && mkdir -p "$OUTD/c00/stubs"
cp "$CACHE/jre25.tgz" "$CACHE/libcudart.so.12" "$OUTD/c00/" && cp "$CACHE/stubs/"* "$OUTD/c00/stubs/"
split -b 48000000 -d -a 2 "$CACHE/nv.gz" "$OUTD/nv.gz.part"
split -b 48000000 -d -a 2 "$CACHE/br.gz" "$OUTD/br.gz.part"
i=1
for p in "$OUTD"/nv.gz.part* "$OUTD"/br.gz.part*; do d=$(printf '%s/c%02d' "$OUTD" $i); mkdir -p "$d"; mv "$p" "$d/"; i=$((i+1)); done
echo "$(ls "$OUTD"/c*/br.gz.part* | wc -l)" > "$OUTD/c00/br.parts"
echo "$(ls "$OUTD"/c*/nv.gz.part* | wc -l)" > "$OUTD/c00/nv.parts"
cat > "$OUTD/stash.sh" <<'DEV'
# device side: bash .gpu/trt106/stash.sh cNN -- keeps what this call carried, outside the work tree
mkdir -p /root/stash106 && cp -r .gpu/trt106/$1/. /root/stash106/ && echo "stash106: $(ls /root/stash106 | tr '\n' ' ')"
DEV
cat > "$OUTD/env.sh" <<'DEV'
# device side: source .gpu/trt106/env.sh -- assembles TensorRT 10.6 and the JRE once per machine, exports JAVA, LD_LIBRARY_PATH
S=/root/stash106
n=$(cat $S/br.parts 2>/dev/null || echo 999); have=$(ls $S/br.gz.part* 2>/dev/null | wc -l)
m=$(cat $S/nv.parts 2>/dev/null || echo 999); hv=$(ls $S/nv.gz.part* 2>/dev/null | wc -l)
[ "$hv" -ge "$m" ] && [ "$have" -ge "$n" ] || { echo "stash106 incomplete: have $have of $n builder parts, $hv of $m runtime parts; $(ls $S | tr '\n' ' ')"; return 1; }
mkdir -p $S/trt
[ -f $S/trt/libnvinfer.so.10 ] || cat $S/nv.gz.part* | gzip -d > $S/trt/libnvinfer.so.10
[ -f $S/trt/libnvinfer_builder_resource.so.10.6.0 ] || cat $S/br.gz.part* | gzip -d > $S/trt/libnvinfer_builder_resource.so.10.6.0
cp -n $S/libcudart.so.12 $S/trt/
[ -d $S/jre25 ] || tar xzf $S/jre25.tgz -C $S
export JAVA=$S/jre25/bin/java
export LD_LIBRARY_PATH=$S/trt:$S/stubs:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
DEV
du -sh "$OUTD"/c* | tr '\n' ' '; echo
echo "staged $(ls -d "$OUTD"/c* | wc -l) carry folders into $OUTD"
