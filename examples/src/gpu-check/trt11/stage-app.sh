#!/usr/bin/env bash
# Builds trace-core, trace-tensorrt-model and trace-tensorrt against the TensorRT 11.2 preset (-Ptrt-11.2: classes and
# the native shim), compiles the TensorRT 11 check (examples/src/gpu-check/trt11/java, never part of a published
# jar) against them, and copies it
# with every jar it needs, the linux-x86_64 JavaCPP JNI parts included, into <project>/.gpu/trt-compat/app.
# TensorRT 11.2 itself (libnvinfer.so.11), the JRE and the cuDNN stand-ins come from ../shared/gpu/stage-trt112.sh.
# Usage: examples/src/gpu-check/trt11/stage-app.sh [destination project root, relative to where you run it; default <root>]
# Then on the GPU host (after stashing c00..c04 of .gpu/trt112): bash .gpu/trt-compat/run11.sh, or: source .gpu/trt112/env.sh &&
#   $JAVA --enable-native-access=ALL-UNNAMED -cp '.gpu/trt-compat/app/*' io.github.trtrace.examples.gpucheck.Trt11Check
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
DEST=$(cd "${1:-$ROOT}" && pwd)/.gpu/trt-compat/app   # absolute, against the caller's folder
M2=${M2_REPO:-$HOME/.m2/repository}
JDK=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
cd "$ROOT"
prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" pom.xml | head -1; }
JAVACPP=1.5.14; TRT=11.2-1.5.14; CUDA=13.3-9.25-1.5.14   # the trt-11.2 profile of trace-tensorrt/pom.xml
SLF4J=$(prop slf4j.version); JACKSON=$(prop jackson.version)

JAVA_HOME=$JDK mvn -B -q -o -pl trace-tensorrt -am -Ptrt-11.2 -DskipTests -Dmaven.javadoc.skip=true clean compile
for a in org.bytedeco:javacpp:$JAVACPP org.bytedeco:cuda:$CUDA org.bytedeco:tensorrt:$TRT; do
  g=${a%%:*}; rest=${a#*:}; art=${rest%%:*}; ver=${rest#*:}
  [ -f "$M2/${g//.//}/$art/$ver/$art-$ver-linux-x86_64.jar" ] || \
    JAVA_HOME=$JDK mvn -B -q dependency:get -Dartifact=$a:jar:linux-x86_64 -Dtransitive=false
done
[ -f "$M2/org/slf4j/slf4j-simple/$SLF4J/slf4j-simple-$SLF4J.jar" ] || \
  JAVA_HOME=$JDK mvn -B -q dependency:get -Dartifact=org.slf4j:slf4j-simple:$SLF4J -Dtransitive=false

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
)
OUT=examples/target/gpucheck11
rm -rf "$OUT" && mkdir -p "$OUT/classes"
CP="trace-core/target/classes:trace-tensorrt-model/target/classes:trace-tensorrt/target/classes:$(IFS=:; echo "${JARS[*]}")"
"$JDK/bin/javac" --release 17 -nowarn -cp "$CP" -d "$OUT/classes" $(find examples/src/gpu-check/trt11/java -name '*.java')

rm -rf "$DEST" && mkdir -p "$DEST"
"$JDK/bin/jar" cf "$DEST/trtrace-gpucheck11.jar" -C "$OUT/classes" .
"$JDK/bin/jar" cf "$DEST/trtrace-classes.jar" -C trace-core/target/classes . -C trace-tensorrt-model/target/classes . -C trace-tensorrt/target/classes .
cp "${JARS[@]}" "$DEST/"
cp examples/src/gpu-check/trt11/run11.sh "$DEST/../run11.sh"
du -sh "$DEST"; ls -la "$DEST"
