package io.github.trtrace.core.context;

import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;

/**
 * The request the current thread works for. Minimal stand-in with the agreed members only, added on
 * the {@code trace-tensorrt} branch so it compiles; the real implementation (ScopedValue/ThreadLocal,
 * propagation) replaces this file at merge.
 *
 * <pre>{@code
 * RequestContext ctx = RequestContext.current();
 * String id = ctx.isEmpty() ? null : ctx.requestId();
 * }</pre>
 */
@NullMarked
public final class RequestContext {
  private static final RequestContext EMPTY = new RequestContext();

  private RequestContext() {}

  /** The context of the calling thread; empty when no request is in progress. */
  public static RequestContext current() {
    return EMPTY;
  }

  /** Whether no request is bound to the calling thread. */
  public boolean isEmpty() {
    return true;
  }

  /** The bound request's ID, or {@code null} when empty. */
  public @Nullable String requestId() {
    return null;
  }
}
