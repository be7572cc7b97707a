/**
 * trtrace for NVIDIA TensorRT, the part without natives: build reports ({@code BuildReport}, its JSON form and
 * fingerprint, {@code BuildDiff}, {@code BuildGate}, {@code BuildFailureDiagnosis}, the engine inspector's JSON) and
 * TensorRT log events ({@code TrtLogEvent}, {@code TrtSeverity}, {@code TrtLogKind}, {@code TrtErrorCode}, {@code
 * RecordedError}). Plain Java and streaming JSON: no JavaCPP, usable where TensorRT is not installed (CI, the
 * {@code trtrace} command line). Every package it has is API; helpers are package-private.
 */
module io.github.trtrace.tensorrt.model {
  requires com.fasterxml.jackson.core;
  requires static org.jspecify;

  exports io.github.trtrace.tensorrt.model.build;
  exports io.github.trtrace.tensorrt.model.log;
}
