package io.github.trtrace.core;

import io.github.trtrace.core.dispatch.DispatcherStats;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The disabled path: accepts everything, records nothing, allocates nothing per request. */
final class NoopTracer implements InferenceTracer, InferenceTrace, InferenceTrace.StageScope {
  static final NoopTracer INSTANCE = new NoopTracer();

  private static final DispatcherStats EMPTY = new DispatcherStats(0, 0, 0, 0, 0, 0, java.util.Map.of());

  private NoopTracer() {}

  @Override public InferenceTrace start(String modelName) { return this; }
  @Override public InferenceTrace start(String modelName, String requestId) { return this; }
  @Override public TracerStats stats() { return new TracerStats(0, 0, 0, 0, 0, 0, EMPTY); }
  @Override public CompletableFuture<Void> flush() { return CompletableFuture.completedFuture(null); }
  @Override public String requestId() { return ""; }
  @Override public String modelName() { return ""; }
  @Override public StageScope stage(Stage stage) { return this; }
  @Override public InferenceTrace beginStage(Stage stage) { return this; }
  @Override public InferenceTrace endStage(Stage stage) { return this; }
  @Override public InferenceTrace firstToken() { return this; }
  @Override public InferenceTrace token() { return this; }
  @Override public InferenceTrace input(CharSequence rawInput) { return this; }
  @Override public InferenceTrace inputTokens(int count) { return this; }
  @Override public InferenceTrace outputTokens(int count) { return this; }
  @Override public InferenceTrace addGpuMs(double ms) { return this; }
  @Override public InferenceTrace engineFingerprint(String fingerprint) { return this; }
  @Override public InferenceTrace status(Status status) { return this; }
  @Override public InferenceTrace error(Throwable error) { return this; }
  @Override public InferenceTrace error(String errorType) { return this; }
  @Override public InferenceTrace event(String kind, String severity, String message) { return this; }
  @Override public InferenceTrace layers(List<InferenceRecord.LayerTime> layers) { return this; }
  @Override public InferenceTrace traceContext(String traceId, String spanId) { return this; }
  @Override public InferenceTrace attribute(String key, String value) { return this; }
  @Override public long elapsedNanos() { return 0; }
  @Override public boolean isEnded() { return false; }
  @Override public void close() {}
}
