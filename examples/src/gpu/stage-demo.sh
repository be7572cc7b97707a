#!/usr/bin/env bash
# Stages the demo with its TensorRT backend for the GPU host, on the TensorRT 10.6 line (the only Maven
# natives that build engines on the H200, see ../../../../shared/gpu/README.md): builds the examples and what
# they depend on with -Ptrt-10.6, copies every run-time jar plus the linux-x86_64 JavaCPP natives of javacpp,
# cuda and tensorrt 10.6 into one folder.
# Usage: examples/src/gpu/stage-demo.sh [destination folder, relative to where you run it; default <root>/.gpu/demo]
# Then on the GPU host (after the .gpu/trt106 carries): bash examples/src/gpu/run-demo-trt106.sh <folder>
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
# An absolute path, resolved against the caller's folder: Maven would resolve a relative -DoutputDirectory per module.
DEST=${1:-$ROOT/.gpu/demo}
rm -rf "$DEST" && mkdir -p "$DEST" && DEST=$(cd "$DEST" && pwd)
M2=${M2_REPO:-$HOME/.m2/repository}
cd "$ROOT"
JAVACPP=1.5.11; TRT=10.6-1.5.11; CUDA=12.6-9.5-1.5.11
# one reactor: each module's run-time dependencies (the examples' include the siblings' jars) into $DEST
mvn -B -q -o -Ptrt-10.6 -pl examples -am -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true \
  package dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$DEST"
cp examples/target/examples-*.jar "$DEST/"
for a in javacpp/$JAVACPP/javacpp-$JAVACPP cuda/$CUDA/cuda-$CUDA tensorrt/$TRT/tensorrt-$TRT; do
  cp "$M2/org/bytedeco/$a-linux-x86_64.jar" "$DEST/"
done
# trace-testing's own run-time jars (test libraries, not the demo's) and other platforms' natives
rm -f "$DEST"/{assertj-core,byte-buddy,junit-,opentest4j,apiguardian}*.jar \
  "$DEST"/*-windows-* "$DEST"/*-macosx-* "$DEST"/*-android-* 2>/dev/null || true
# The host's Java 25 is a jlink image without java.xml, which Logback's configuration needs: the run there
# logs through slf4j-simple instead (run-demo-trt106.sh sets its level), records still go to the JSON Lines file.
rm -f "$DEST"/logback-*.jar
SLF4J=$(sed -n 's:.*<slf4j.version>\(.*\)</slf4j.version>.*:\1:p' pom.xml | head -1)
[ -f "$M2/org/slf4j/slf4j-simple/$SLF4J/slf4j-simple-$SLF4J.jar" ] || \
  mvn -B -q dependency:get -Dartifact=org.slf4j:slf4j-simple:$SLF4J -Dtransitive=false
cp "$M2/org/slf4j/slf4j-simple/$SLF4J/slf4j-simple-$SLF4J.jar" "$DEST/"
# Kernel records (-Dtrtrace.kernels.sample): this CUDA line's libcupti from the cuda preset's redist jar, into
# $DEST/native; run-demo-trt106.sh puts it where the 12.6 preset looks first (see there why).
REDIST="$M2/org/bytedeco/cuda/$CUDA/cuda-$CUDA-linux-x86_64-redist.jar"
if [ -f "$REDIST" ]; then
  mkdir -p "$DEST/native"
  for lib in $(unzip -Z1 "$REDIST" | grep -E '^org/bytedeco/cuda/linux-x86_64/libcupti\.so'); do
    unzip -q -j -o "$REDIST" "$lib" -d "$DEST/native"
  done
fi
du -sh "$DEST"; ls "$DEST"
