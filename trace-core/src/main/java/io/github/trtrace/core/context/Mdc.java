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
    try {
      String previousId = MDC.get(REQUEST_ID);
      String previousModel = MDC.get(MODEL_NAME);
      set(REQUEST_ID, previousId, context.requestId());
      set(MODEL_NAME, previousModel, context.modelName());
      return new Snapshot(previousId, previousModel, true);
    } catch (RuntimeException e) {
      ContextLog.MISUSE.warn("SLF4J MDC failed, request_id not set in the MDC: {}", e.toString());
      return Snapshot.NONE;
    }
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

  /** The MDC values before a context was entered. */
  static final class Snapshot {
    static final Snapshot NONE = new Snapshot(null, null, false);

    private final @Nullable String requestId;
    private final @Nullable String modelName;
    private final boolean active;

    private Snapshot(@Nullable String requestId, @Nullable String modelName, boolean active) {
      this.requestId = requestId;
      this.modelName = modelName;
      this.active = active;
    }

    /** Puts back the values seen before the context was entered (removing keys that were absent). */
    void restore() {
      if (!active) {
        return;
      }
      try {
        set(REQUEST_ID, MDC.get(REQUEST_ID), requestId);
        set(MODEL_NAME, MDC.get(MODEL_NAME), modelName);
      } catch (RuntimeException e) {
        ContextLog.MISUSE.warn("SLF4J MDC failed, request_id not restored in the MDC: {}", e.toString());
      }
    }
  }
}
