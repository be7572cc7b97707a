#!/usr/bin/env bash
# Builds trace-core + trace-tensorrt (classes and the native shim), compiles the GPU check program
# (src/gpu/java, never part of the published jar) against them, and copies it with every jar it needs,
# including the linux-x86_64 JavaCPP natives, into <project>/.gpu/app for the GPU host.
# Usage: trace-tensorrt/src/gpu/stage-app.sh [destination-project-root, default /work/main]
# Then run there: source .gpu/env.sh && $JAVA -cp '.gpu/app/*' io.github.trtrace.tensorrt.gpucheck.GpuCheck
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
DEST=$(cd "${1:-/work/main}" && pwd)/.gpu/app
M2=${M2_REPO:-$HOME/.m2/repository}
cd "$ROOT"
prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" pom.xml | head -1; }
JAVACPP=$(prop javacpp.version); TRT=$(prop tensorrt.preset.version); CUDA=$(prop cuda.preset.version)
SLF4J=$(prop slf4j.version); JACKSON=$(prop jackson.version)

mvn -B -q -o -pl trace-tensorrt -am compile
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
)
OUT=trace-tensorrt/target/gpucheck
rm -rf "$OUT" && mkdir -p "$OUT/classes"
CP="trace-core/target/classes:trace-tensorrt/target/classes:$(IFS=:; echo "${JARS[*]}")"
javac --release 17 -nowarn -cp "$CP" -d "$OUT/classes" $(find trace-tensorrt/src/gpu/java -name '*.java')

rm -rf "$DEST" && mkdir -p "$DEST"
jar cf "$DEST/trtrace-gpucheck.jar" -C "$OUT/classes" .
jar cf "$DEST/trtrace-classes.jar" -C trace-core/target/classes . -C trace-tensorrt/target/classes .
cp "${JARS[@]}" "$DEST/"
du -sh "$DEST"; ls -la "$DEST"
