package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.OutputFlag;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A pooled entry's values as {@code InferenceRecord}'s own assembly reads them ({@link TracerFactory.RecordAssembly}),
 * so that the dispatcher's worker makes each record straight from its entry, with no {@code InferenceRecord.Builder}
 * in between (issue 22: the builder was 232 of the 1 204 bytes allocated per traced request, and a second pass over
 * every field). The accessors mean what the record's accessors of the same name mean. What they return may be the
 * entry's own (the flag sets, the attribute arrays, the event and layer lists), which the entry reuses once the
 * record is built: the assembly copies each collection it keeps, and keeps nothing else of the entry.
 */
public interface RecordValues {
  String requestId();

  String modelName();

  Instant timestamp();

  Status status();

  @Nullable String errorType();

  double latencyMs();

  @Nullable String traceId();

  @Nullable String spanId();

  int inputTokens();

  int outputTokens();

  int maxTokens();

  double temperature();

  double topP();

  @Nullable String finishReason();

  double stageMs(Stage stage);

  double gpuMs();

  double ttftMs();

  double tpotMs();

  double gpuUtil();

  double gpuUtilMean();

  double gpuUtilMax();

  double gpuMemUtilMean();

  double gpuMemUtilMax();

  double gpuMemUsedMb();

  @Nullable String engineFingerprint();

  @Nullable String sampledReason();

  Set<InputFlag> inputFlags();

  @Nullable String inputDigest();

  Set<OutputFlag> outputFlags();

  SharedLaunch.@Nullable Summary batching();

  /** The attributes' keys: the first {@link #attributeCount()} are distinct, in insertion order. */
  String[] attributeKeys();

  /** The attributes' values, at the same indexes as their keys. */
  String[] attributeValues();

  int attributeCount();

  /** Null or empty: none. */
  @Nullable List<InferenceRecord.Event> events();

  /** Null or empty: none. */
  @Nullable List<InferenceRecord.LayerTime> layers();
}
