package io.github.trtrace.core.context;

import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * Mirrors the current context into the SLF4J MDC and restores the previous values afterwards
 * (unlike {@code MDC.MDCCloseable}, which removes them). A broken MDC adapter never breaks the caller.
 */
final class Mdc {
  static final String REQUEST_ID = "request_id";
  static final String MODEL_NAME = "model_name";

  private Mdc() {}

  /** Puts {@code context}'s values (removing a key the context has no value for) and returns the previous ones. */
  static Snapshot enter(RequestContext context) {
    Snapshot s = new Snapshot();
    s.enter(context.requestId(), context.modelName());
    return s;
  }

  private static void set(String key, @Nullable String previous, @Nullable String value) {
    if (value == null) {
      if (previous != null) {
        MDC.remove(key);
      }
    } else if (!value.equals(previous)) {
      MDC.put(key, value);
    }
  }

  /**
   * The MDC values before a context was entered. Mutable and reusable (a scope frame is one, so that
   * entering a context makes no snapshot object): {@link #enter} records and sets, {@link #restore}
   * puts back.
   */
  static class Snapshot {
    private @Nullable String requestId;
    private @Nullable String modelName;
    private boolean active;

    Snapshot() {}

    /** Records the current MDC values and puts {@code requestId} and {@code modelName} (null removes). */
    final void enter(@Nullable String id, @Nullable String model) {
      try {
        String previousId = MDC.get(REQUEST_ID);
        String previousModel = MDC.get(MODEL_NAME);
        set(REQUEST_ID, previousId, id);
        set(MODEL_NAME, previousModel, model);
        requestId = previousId;
        modelName = previousModel;
        active = true;
      } catch (RuntimeException e) {
        ContextLog.MISUSE.warn("SLF4J MDC failed, request_id not set in the MDC: {}", e.toString());
        requestId = null;
        modelName = null;
        active = false;
      }
    }

    /** Puts back the values seen before the context was entered (removing keys that were absent). */
    final void restore() {
      if (!active) {
        return;
      }
      active = false;
      try {
        set(REQUEST_ID, MDC.get(REQUEST_ID), requestId);
        set(MODEL_NAME, MDC.get(MODEL_NAME), modelName);
      } catch (RuntimeException e) {
        ContextLog.MISUSE.warn("SLF4J MDC failed, request_id not restored in the MDC: {}", e.toString());
      }
      requestId = null;
      modelName = null;
    }
  }
}
