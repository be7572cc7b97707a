package io.github.trtrace.core.context;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/** The only {@link RequestContext} implementation: an immutable value; entering it goes to the storage. */
final class DefaultRequestContext implements RequestContext {
  static final DefaultRequestContext EMPTY = new DefaultRequestContext(null, null, Map.of(), null);

  private final @Nullable String requestId;
  private final @Nullable String modelName;
  private final Map<String, String> attributes;
  private final @Nullable TraceParent traceParent;

  DefaultRequestContext(
      @Nullable String requestId, @Nullable String modelName, Map<String, String> attributes,
      @Nullable TraceParent traceParent) {
    this.requestId = requestId;
    this.traceParent = traceParent;
    this.modelName = modelName;
    this.attributes =
        attributes.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
  }

  @Override
  public @Nullable String requestId() {
    return requestId;
  }

  @Override
  public @Nullable String modelName() {
    return modelName;
  }

  @Override
  public Map<String, String> attributes() {
    return attributes;
  }

  @Override
  public @Nullable TraceParent traceParent() {
    return traceParent;
  }

  @Override
  public boolean isEmpty() {
    return requestId == null;
  }

  @Override
  public Scope open() {
    return ContextStorages.get().open(this);
  }

  @Override
  public void run(Runnable task) {
    Objects.requireNonNull(task, "task");
    ContextStorages.get().run(this, task);
  }

  @Override
  public <T> T call(Callable<T> task) throws Exception {
    Objects.requireNonNull(task, "task");
    return ContextStorages.get().call(this, task);
  }

  @Override
  public RequestContext withModel(@Nullable String model) {
    return new DefaultRequestContext(idOrGenerated(), model, attributes, traceParent);
  }

  @Override
  public RequestContext withAttribute(String key, @Nullable String value) {
    Objects.requireNonNull(key, "attribute key");
    Map<String, String> copy = new LinkedHashMap<>(attributes);
    if (value == null) {
      copy.remove(key);
    } else {
      copy.put(key, value);
    }
    return new DefaultRequestContext(idOrGenerated(), modelName, copy, traceParent);
  }

  private String idOrGenerated() {
    return requestId == null ? RequestIds.generate() : requestId;
  }

  @Override
  public String toString() {
    if (requestId == null) {
      return "RequestContext{empty}";
    }
    return "RequestContext{requestId=" + requestId
        + (modelName == null ? "" : ", model=" + modelName)
        + (attributes.isEmpty() ? "" : ", attributes=" + attributes)
        + (traceParent == null ? "" : ", traceParent=" + traceParent.toHeader())
        + "}";
  }
}
