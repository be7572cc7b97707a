package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.internal.dispatch.DispatcherCounts;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.TracerStats.DispatcherStats;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** The disabled path: accepts everything, records nothing, allocates nothing per request. */
final class NoopTracer implements InferenceTracer, InferenceTrace, InferenceTrace.StageTimer {
  static final NoopTracer INSTANCE = new NoopTracer();

  private static final DispatcherStats EMPTY = new DispatcherCounts(0, 0, 0, 0, 0, 0, java.util.Map.of());

  private NoopTracer() {}

  @Override public InferenceTrace start(String modelName) { return this; }
  @Override public InferenceTrace start(String modelName, @Nullable String requestId) { return this; }
  @Override public TracerStats stats() { return new TracerCounts(0, 0, 0, 0, 0, 0, EMPTY); }
  @Override public CompletableFuture<Void> flush() { return CompletableFuture.completedFuture(null); }
  @Override public String requestId() { return ""; }
  @Override public String modelName() { return ""; }
  @Override public TraceScope makeCurrent() { return TraceScope.NOOP; }
  @Override public StageTimer stage(Stage stage) { return this; }
  @Override public <T, E extends Throwable> T callStage(Stage stage, StageCallable<T, E> body) throws E {
    return body.call();
  }
  @Override public <E extends Throwable> void runStage(Stage stage, StageRunnable<E> body) throws E {
    body.run();
  }
  @Override public InferenceTrace firstToken() { return this; }
  @Override public InferenceTrace token() { return this; }
  @Override public InferenceTrace input(CharSequence rawInput) { return this; }
  @Override public InferenceTrace inputTokens(int count) { return this; }
  @Override public InferenceTrace outputTokens(int count) { return this; }
  @Override public InferenceTrace output(CharSequence output) { return this; }
  @Override public InferenceTrace maxTokens(int count) { return this; }
  @Override public InferenceTrace temperature(double temperature) { return this; }
  @Override public InferenceTrace topP(double topP) { return this; }
  @Override public InferenceTrace finishReason(String reason) { return this; }
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
