package io.github.trtrace.core.internal.context;

import io.github.trtrace.core.context.RequestContext;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The tracer's allocation-free way into the context storage (issue 10), installed by the context
 * package when its storage is chosen: the current request ID and model without materialising the
 * current {@link RequestContext}, and a {@link ReusableScope} that a garbage-free {@code call}/{@code
 * run} opens and closes around each body instead of building a context and a scope per request.
 */
public final class ContextAccess {
  /** What the context package provides. */
  public interface Hooks {
    ReusableScope newScope();

    /** {@code RequestContext.current().requestId()}, without building the current context. */
    @Nullable String currentRequestId();

    /** {@code RequestContext.current().modelName()}, without building the current context. */
    @Nullable String currentModelName();
  }

  /**
   * A scope object opened and closed again and again on one thread at a time; the same rules as
   * {@code RequestContext.open()} (closing restores the previous context and MDC values), no object
   * per opening. The context is built only if someone asks for {@code RequestContext.current()}.
   */
  public interface ReusableScope {
    void open(String requestId, @Nullable String modelName, Map<String, String> attributes);

    /** Closes the last {@link #open}; a second close does nothing. */
    void close();
  }

  private static volatile @Nullable Hooks hooks;

  private ContextAccess() {}

  /** Called once by the context package. */
  public static void install(Hooks h) {
    hooks = h;
  }

  public static Hooks hooks() {
    Hooks h = hooks;
    if (h == null) {
      RequestContext.current(); // chooses the storage, which installs the hooks
      h = hooks;
      if (h == null) {
        throw new IllegalStateException("trtrace context hooks not installed");
      }
    }
    return h;
  }
}
