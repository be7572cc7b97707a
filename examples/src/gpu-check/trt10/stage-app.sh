#!/usr/bin/env bash
# Builds trace-core, trace-tensorrt-model and trace-tensorrt (classes and the native shim) for one TensorRT 10.x
# line, compiles the GPU check program (examples/src/gpu-check/trt10/java, never part of a published jar) against
# them, and copies it with every jar it needs, including the linux-x86_64 JavaCPP natives of that line, into one
# folder for the GPU host.
# Usage: examples/src/gpu-check/trt10/stage-app.sh [destination folder, relative to where you run it; default
#   <root>/.gpu/app] [maven profile: empty for the default line (TensorRT 10.15), or trt-10.6 (trace-tensorrt/pom.xml)]
# Then run there: source <TensorRT env.sh> && LD_LIBRARY_PATH=<folder>/native:$LD_LIBRARY_PATH \
#   $JAVA -cp '<folder>/*' io.github.trtrace.examples.gpucheck.GpuCheck
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
DEST=${1:-$ROOT/.gpu/app}
rm -rf "$DEST" && mkdir -p "$DEST" && DEST=$(cd "$DEST" && pwd)   # absolute, against the caller's folder
PROFILE=${2:-}
M2=${M2_REPO:-$HOME/.m2/repository}
cd "$ROOT"
prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" pom.xml | head -1; }
# a property of the given profile in trace-tensorrt/pom.xml, else of the root pom
pprop() {
  local v=""
  if [ -n "$PROFILE" ]; then
    v=$(python3 - "$PROFILE" "$1" <<'PY'
import re, sys
pom = open("trace-tensorrt/pom.xml").read()
m = re.search(r"<profile>\s*<id>" + re.escape(sys.argv[1]) + r"</id>(.*?)</profile>", pom, re.S)
p = m and re.search("<" + sys.argv[2] + r">(.*?)</" + sys.argv[2] + ">", m.group(1))
print(p.group(1) if p else "")
PY
)
  fi
  [ -n "$v" ] && echo "$v" || prop "$1"
}
JAVACPP=$(pprop javacpp.version); TRT=$(pprop tensorrt.preset.version); CUDA=$(pprop cuda.preset.version)
SLF4J=$(prop slf4j.version); JACKSON=$(prop jackson.version); JCTOOLS=$(prop jctools.version); JSPECIFY=$(prop jspecify.version)
echo "staging for TensorRT preset $TRT (javacpp $JAVACPP, cuda $CUDA) into $DEST"

mvn -B -q -o -pl trace-tensorrt,trace-testing -am ${PROFILE:+-P$PROFILE} -Dmaven.javadoc.skip=true compile
for a in org.bytedeco:javacpp:$JAVACPP org.bytedeco:cuda:$CUDA org.bytedeco:tensorrt:$TRT; do
  g=${a%%:*}; rest=${a#*:}; art=${rest%%:*}; ver=${rest#*:}
  [ -f "$M2/${g//.//}/$art/$ver/$art-$ver-linux-x86_64.jar" ] || \
    mvn -B -q dependency:get -Dartifact=$a:jar:linux-x86_64 -Dtransitive=false
done
[ -f "$M2/org/slf4j/slf4j-simple/$SLF4J/slf4j-simple-$SLF4J.jar" ] || \
  mvn -B -q dependency:get -Dartifact=org.slf4j:slf4j-simple:$SLF4J -Dtransitive=false

JARS=(
  "$M2/org/bytedeco/javacpp/$JAVACPP/javacpp-$JAVACPP.jar"
  "$M2/org/bytedeco/javacpp/$JAVACPP/javacpp-$JAVACPP-linux-x86_64.jar"
  "$M2/org/bytedeco/cuda/$CUDA/cuda-$CUDA.jar"
  "$M2/org/bytedeco/cuda/$CUDA/cuda-$CUDA-linux-x86_64.jar"
  "$M2/org/bytedeco/tensorrt/$TRT/tensorrt-$TRT.jar"
  "$M2/org/bytedeco/tensorrt/$TRT/tensorrt-$TRT-linux-x86_64.jar"
  "$M2/org/slf4j/slf4j-api/$SLF4J/slf4j-api-$SLF4J.jar"
  "$M2/org/slf4j/slf4j-simple/$SLF4J/slf4j-simple-$SLF4J.jar"
  "$M2/com/fasterxml/jackson/core/jackson-core/$JACKSON/jackson-core-$JACKSON.jar"
  "$M2/org/jctools/jctools-core/$JCTOOLS/jctools-core-$JCTOOLS.jar"   # trace-core's classes, unshaded
)
OUT=examples/target/gpucheck
rm -rf "$OUT" && mkdir -p "$OUT/classes"
CP="trace-core/target/classes:trace-testing/target/classes:trace-tensorrt-model/target/classes:trace-tensorrt/target/classes:$(IFS=:; echo "${JARS[*]}")"
# The network and a request's device state live in the examples (shared with the demo's TensorRT backend), and
# the ratio summaries too (shared with the demo's CPU overhead program): compiled here from source, so the check
# needs no examples build.
javac --release 17 -nowarn -cp "$CP:$M2/org/jspecify/jspecify/$JSPECIFY/jspecify-$JSPECIFY.jar" -d "$OUT/classes" \
  $(find examples/src/gpu-check/trt10/java examples/src/main/java/io/github/trtrace/examples/tensorrt \
    examples/src/main/java/io/github/trtrace/examples/stats -name '*.java')

jar cf "$DEST/trtrace-gpucheck.jar" -C "$OUT/classes" .
jar cf "$DEST/trtrace-classes.jar" -C trace-core/target/classes . -C trace-testing/target/classes . -C trace-tensorrt-model/target/classes . -C trace-tensorrt/target/classes .
cp "${JARS[@]}" "$DEST/"
# async-profiler (Maven Central) for -Dtrtrace.checks=profile (LaunchProfile, loaded by reflection; absent: SKIP)
AP=$M2/tools/profiler/async-profiler/4.0/async-profiler-4.0-linux-x64.jar
[ -f "$AP" ] || mvn -B -q dependency:get -Dartifact=tools.profiler:async-profiler:4.0:jar:linux-x64 -Dtransitive=false || true
[ -f "$AP" ] && cp "$AP" "$DEST/"
# Kernel records (CUPTI) and NVTX ranges need this CUDA line's libcupti and, on CUDA <= 12, libnvToolsExt: taken from
# the cuda preset's redist jar into <folder>/native, which run-trt106.sh puts on LD_LIBRARY_PATH (the preset's
# libjnicupti.so is in the cuda-...-linux-x86_64.jar above). Without them the check's kernel records say off.
REDIST=$M2/org/bytedeco/cuda/$CUDA/cuda-$CUDA-linux-x86_64-redist.jar
[ -f "$REDIST" ] || mvn -B -q dependency:get -Dartifact=org.bytedeco:cuda:$CUDA:jar:linux-x86_64-redist -Dtransitive=false || true
if [ -f "$REDIST" ]; then
  mkdir -p "$DEST/native"
  for lib in $(unzip -Z1 "$REDIST" | grep -E '^org/bytedeco/cuda/linux-x86_64/lib(cupti|nvToolsExt)\.so'); do
    unzip -q -j -o "$REDIST" "$lib" -d "$DEST/native"
  done
  echo "native: $(ls "$DEST/native" | tr '\n' ' ')"
else
  echo "WARNING: no $REDIST: the kernel-record checks will say CUPTI could not be loaded" >&2
fi
du -sh "$DEST"; ls -la "$DEST"
