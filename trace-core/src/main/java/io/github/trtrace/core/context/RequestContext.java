package io.github.trtrace.core.context;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * The request an inference call belongs to: its ID, the model serving it, user attributes and, when the
 * caller sent a valid W3C {@code traceparent}, the caller's {@link TraceParent}. Immutable.
 *
 * <p>One context is <em>current</em> on each thread (the {@linkplain #empty() empty} one when none). It
 * becomes current structurally with {@link #run}/{@link #call}, or until a {@link Scope} is closed with
 * {@link #open()}; either way the previous context is restored afterwards, and the SLF4J MDC keys
 * {@code request_id} and {@code model_name} follow the current context and get their previous values
 * back. {@link #wrap(ExecutorService)} and friends carry the submitter's context to other threads.
 *
 * <pre>{@code
 * RequestContext.with(RequestIds.accept(header).id()).model("llama-8b").run(() -> {
 *   log.info("queued");                       // MDC request_id=req-...
 *   pool.submit(() -> infer(input));          // pool = RequestContext.wrap(executor): same context there
 * });
 * try (RequestContext.Scope s = RequestContext.with("req-1").open()) { handle(); }
 * }</pre>
 *
 * <p>Storage: a {@code ScopedValue} on Java 25+ when trace-core runs from its
 * multi-release jar, a {@link ThreadLocal} otherwise; system property {@code trtrace.context.storage}
 * ({@code threadlocal} | {@code scopedvalue}) overrides the choice. Both behave the same; with
 * {@code scopedvalue}, {@code run}/{@code call} are cheapest and {@code open()} uses a per-thread stack.
 *
 * <p>Scopes opened with {@link #open()} must be closed on the thread that opened them. Closing a scope
 * that is not the innermost also closes those opened inside it, and the thread gets back the context it
 * had before the closed scope; closing twice does nothing. Scopes opened inside {@code run}/{@code call}
 * and left open are closed when it returns; a scope opened before a {@code run}/{@code call} and closed
 * inside it closes when that returns. Misuse is logged (rate limited) and never thrown.
 */
public interface RequestContext {

  /** The request ID; null only for the {@linkplain #empty() empty} context. */
  @Nullable String requestId();

  /** The model name, null when not set. */
  @Nullable String modelName();

  /** User attributes in insertion order; unmodifiable. */
  Map<String, String> attributes();

  /**
   * The caller's W3C trace context, null when none came in. A trace started under this context links its
   * record to it ({@code trace_id}, and the caller's span as {@code span_id} unless a listener such as
   * trace-otel links it to its own span first), and trace-otel makes it the remote parent of the request
   * span. Set by trace-http's filters or {@link Builder#traceParent}; kept by {@link #withModel} and
   * {@link #withAttribute}.
   */
  @Nullable TraceParent traceParent();

  /** True only for the context with no request (what {@link #current()} returns outside any request). */
  boolean isEmpty();

  /** Makes this context current until the returned scope is closed; then the previous one (and MDC) returns. */
  Scope open();

  /** Runs {@code task} with this context current; the previous one is restored afterwards, even on exceptions. */
  void run(Runnable task);

  /** Calls {@code task} with this context current; the previous one is restored afterwards, even on exceptions. */
  <T> T call(Callable<T> task) throws Exception;

  /**
   * A copy with {@code model} as model name (null removes it). On the empty context the copy gets a
   * generated {@code req-} ID, since only the empty context has no ID.
   */
  RequestContext withModel(@Nullable String model);

  /**
   * A copy with attribute {@code key} set to {@code value} (null removes it). On the empty context the copy
   * gets a generated {@code req-} ID.
   *
   * @throws NullPointerException if {@code key} is null
   */
  RequestContext withAttribute(String key, @Nullable String value);

  /** The context current on this thread; the empty context when none, never null. */
  static RequestContext current() {
    return ContextStorages.get().current();
  }

  /** The context with no request: no ID, no model, no attributes. */
  static RequestContext empty() {
    return DefaultRequestContext.EMPTY;
  }

  /**
   * Starts a context for {@code requestId}. A {@linkplain RequestIds#isValid valid} ID is used as is; a null
   * one is replaced by a generated {@code req-} ID; an invalid one too, kept sanitized in attribute
   * {@value RequestIds#REJECTED_ATTRIBUTE} and logged (rate limited) — prefer {@link RequestIds#accept}
   * for raw header values.
   */
  static Builder with(@Nullable String requestId) {
    return new Builder(requestId);
  }

  /** {@code task} running, on whatever thread, under the context current now (even when that is empty). */
  static Runnable wrap(Runnable task) {
    Objects.requireNonNull(task, "task");
    RequestContext captured = current();
    return () -> captured.run(task);
  }

  /** {@code task} called, on whatever thread, under the context current now (even when that is empty). */
  static <T> Callable<T> wrap(Callable<T> task) {
    Objects.requireNonNull(task, "task");
    RequestContext captured = current();
    return () -> captured.call(task);
  }

  /** An executor whose tasks run under the context current when each was submitted. */
  static Executor wrap(Executor executor) {
    Objects.requireNonNull(executor, "executor");
    if (executor instanceof ContextExecutor || executor instanceof ContextExecutorService) {
      return executor;
    }
    return new ContextExecutor(executor);
  }

  /**
   * An executor service whose tasks ({@code execute}, {@code submit}, {@code invokeAll}, {@code invokeAny})
   * run under the context current when they were submitted. Shutting it down shuts {@code executor} down.
   */
  static ExecutorService wrap(ExecutorService executor) {
    Objects.requireNonNull(executor, "executor");
    if (executor instanceof ContextExecutorService) { // the scheduled one too
      return executor;
    }
    return new ContextExecutorService(executor);
  }

  /**
   * A scheduled executor service whose tasks run under the context current when they were submitted: those of
   * {@link #wrap(ExecutorService)}, and {@code schedule}, {@code scheduleAtFixedRate} and {@code
   * scheduleWithFixedDelay} (every run of a periodic task under the context it was scheduled in). Shutting it
   * down shuts {@code executor} down.
   *
   * <pre>{@code
   * ScheduledExecutorService timers = RequestContext.wrap(Executors.newSingleThreadScheduledExecutor());
   * timers.schedule(() -> log.warn("still generating"), 30, TimeUnit.SECONDS);   // logged with the request's ID
   * }</pre>
   */
  static ScheduledExecutorService wrap(ScheduledExecutorService executor) {
    Objects.requireNonNull(executor, "executor");
    if (executor instanceof ContextScheduledExecutorService) {
      return executor;
    }
    return new ContextScheduledExecutorService(executor);
  }

  /**
   * {@code Executors.newVirtualThreadPerTaskExecutor()}, {@linkplain #wrap(ExecutorService) wrapped}.
   *
   * @throws UnsupportedOperationException on Java 17 to 20, which have no (final) virtual threads
   */
  static ExecutorService newVirtualThreadPerTaskExecutor() {
    return wrap(VirtualThreads.newThreadPerTaskExecutor());
  }

  /**
   * {@code Thread.startVirtualThread(task)} with the current context propagated to it.
   *
   * @throws UnsupportedOperationException on Java 17 to 20, which have no (final) virtual threads
   */
  static Thread startVirtualThread(Runnable task) {
    return VirtualThreads.start(wrap(task));
  }


  /**
   * A context made current by {@link #open()}. {@link #close()} restores the previous context; it is
   * idempotent and never throws.
   *
   * <p>Thread rule, the same as {@code io.github.trtrace.core.TraceScope}'s: close it on the thread
   * that opened it, innermost scope first (try-with-resources does both). A close on another thread
   * does nothing and is logged; closing an outer scope first also closes the scopes opened inside it.
   * (Every type called {@code Scope} in trtrace follows this rule; closeables that may be closed on any
   * thread are not called scopes.)
   */
  interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Builds a context; {@link #run}, {@link #call} and {@link #open()} build and enter it in one step.
   *
   * <pre>{@code
   * RequestContext.with(id).model("llama-8b").attribute("tenant", "t1").run(this::handle);
   * }</pre>
   */
  final class Builder {
    private final String requestId;
    private @Nullable String modelName;
    /** Made on the first attribute only: a builder without attributes is often scalar-replaced by the JIT. */
    private @Nullable Map<String, String> attributes;
    private @Nullable TraceParent traceParent;

    private Builder(@Nullable String requestId) {
      if (requestId != null && RequestIds.isValid(requestId)) {
        this.requestId = requestId;
        return;
      }
      RequestIds.Accepted accepted = RequestIds.accept(requestId);
      this.requestId = accepted.id();
      String rejected = accepted.rejectedValue();
      if (rejected != null) {
        attributes().put(RequestIds.REJECTED_ATTRIBUTE, rejected);
        ContextLog.INVALID_ID.warn(
            "invalid request ID '{}' passed to RequestContext.with: replaced by {}", rejected, this.requestId);
      }
    }

    /** Sets the model name; null removes it. */
    public Builder model(@Nullable String model) {
      this.modelName = model;
      return this;
    }

    /**
     * Sets attribute {@code key}; a null value removes it.
     *
     * @throws NullPointerException if {@code key} is null
     */
    public Builder attribute(String key, @Nullable String value) {
      Objects.requireNonNull(key, "attribute key");
      if (value == null) {
        if (attributes != null) {
          attributes.remove(key);
        }
      } else {
        attributes().put(key, value);
      }
      return this;
    }

    /** Sets the caller's trace context (see {@link RequestContext#traceParent()}); null removes it. */
    public Builder traceParent(@Nullable TraceParent traceParent) {
      this.traceParent = traceParent;
      return this;
    }

    private Map<String, String> attributes() {
      Map<String, String> a = attributes;
      if (a == null) {
        a = attributes = new LinkedHashMap<>();
      }
      return a;
    }

    /** The immutable context. */
    public RequestContext build() {
      return new DefaultRequestContext(
          requestId, modelName, attributes == null ? Map.of() : attributes, traceParent);
    }

    /** Builds the context and {@linkplain RequestContext#run runs} {@code task} under it. */
    public void run(Runnable task) {
      build().run(task);
    }

    /** Builds the context and {@linkplain RequestContext#call calls} {@code task} under it. */
    public <T> T call(Callable<T> task) throws Exception {
      return build().call(task);
    }

    /** Builds the context and {@linkplain RequestContext#open opens} it. */
    public Scope open() {
      return build().open();
    }
  }
}
