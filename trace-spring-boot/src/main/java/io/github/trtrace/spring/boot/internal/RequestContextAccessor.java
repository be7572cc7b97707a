package io.github.trtrace.spring.boot.internal;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.spring.boot.TrtraceWebFilter;
import io.micrometer.context.ThreadLocalAccessor;
import java.util.ArrayDeque;
import java.util.Deque;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer context-propagation accessor for trtrace's {@link RequestContext}: restores the context from the
 * Reactor context on the thread that runs an operator, and the thread's previous context afterwards. trtrace's
 * contexts are opened and closed as scopes (last opened, first closed), so each {@code setValue} opens a
 * scope (of the empty context when the Reactor context has none) and the matching {@code restore} closes it.
 */
public final class RequestContextAccessor implements ThreadLocalAccessor<RequestContext> {
  private static final ThreadLocal<Deque<RequestContext.Scope>> SCOPES = ThreadLocal.withInitial(ArrayDeque::new);

  @Override
  public Object key() {
    return TrtraceWebFilter.CONTEXT_KEY;
  }

  @Override
  public @Nullable RequestContext getValue() {
    RequestContext c = RequestContext.current();
    return c.requestId() == null ? null : c;
  }

  @Override
  public void setValue(RequestContext value) {
    SCOPES.get().push(value.open());
  }

  /** No context in the Reactor context: the empty one is current until the matching restore. */
  @Override
  public void setValue() {
    SCOPES.get().push(RequestContext.empty().open());
  }

  @Override
  public void restore(RequestContext previousValue) {
    closeLatest();
  }

  @Override
  public void restore() {
    closeLatest();
  }

  private static void closeLatest() {
    RequestContext.Scope s = SCOPES.get().poll();
    if (s != null) {
      s.close();
    }
  }
}
