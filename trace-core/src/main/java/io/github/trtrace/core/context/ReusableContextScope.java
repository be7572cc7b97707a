package io.github.trtrace.core.context;

import io.github.trtrace.core.internal.context.ContextAccess;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ContextAccess.ReusableScope} of a garbage-free {@code call}/{@code run}: one {@link
 * ScopeStack.Frame} pushed again for every request (its context built only when asked for), so that
 * making the request current allocates nothing. A frame still waiting for a deferred close is left
 * alone and a new one made. Storages other than {@link LayeredStorage} (none today) get a plain
 * {@link RequestContext#open()}.
 */
final class ReusableContextScope implements ContextAccess.ReusableScope {
  private ScopeStack.@Nullable Frame frame;
  private RequestContext.@Nullable Scope other;

  @Override
  public void open(String requestId, @Nullable String modelName, Map<String, String> attributes) {
    ContextStorage storage = ContextStorages.get();
    if (storage instanceof LayeredStorage) {
      frame = ((LayeredStorage) storage).overlay().pushReusable(frame, requestId, modelName, attributes);
    } else {
      other = new DefaultRequestContext(requestId, modelName, attributes, null).open();
    }
  }

  @Override
  public void close() {
    ScopeStack.Frame f = frame;
    if (f != null) {
      f.close();
    }
    RequestContext.Scope o = other;
    if (o != null) {
      other = null;
      o.close();
    }
  }

  /** The hooks {@link ContextStorages} installs. */
  static final class Hooks implements ContextAccess.Hooks {
    @Override
    public ContextAccess.ReusableScope newScope() {
      return new ReusableContextScope();
    }

    @Override
    public @Nullable String currentRequestId() {
      ContextStorage s = ContextStorages.get();
      return s instanceof LayeredStorage ? ((LayeredStorage) s).currentRequestId() : s.current().requestId();
    }

    @Override
    public @Nullable String currentModelName() {
      ContextStorage s = ContextStorages.get();
      return s instanceof LayeredStorage ? ((LayeredStorage) s).currentModelName() : s.current().modelName();
    }
  }
}
