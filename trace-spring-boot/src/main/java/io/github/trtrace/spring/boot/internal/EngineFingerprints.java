package io.github.trtrace.spring.boot.internal;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.TraceListener;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** Keeps the engine fingerprint last recorded per model (at most {@value #MAX_MODELS} models). */
public final class EngineFingerprints implements TraceListener {
  static final int MAX_MODELS = 256;

  private final Map<String, String> byModel = new ConcurrentHashMap<>();
  private final TraceListener.Handle handle = new TraceListener.Handle() {
    @Override
    public void onEnd(InferenceRecord r, long endEpochNanos) {
      String fp = r.engineFingerprint();
      if (fp != null && (byModel.size() < MAX_MODELS || byModel.containsKey(r.modelName()))) {
        byModel.put(r.modelName(), fp);
      }
    }
  };

  @Override
  public TraceListener.Handle onStart(InferenceTrace trace, long startEpochNanos) {
    return handle;
  }

  /** Model name to fingerprint, sorted by model. */
  public Map<String, String> byModel() {
    return new TreeMap<>(byModel);
  }
}
