package io.github.trtrace.core.context;

import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * The one model behind both storages: a structured <em>binding</em> set by {@code run}/{@code call} for
 * exactly their duration (a {@code ScopedValue} or a save-and-restore {@link ThreadLocal}), plus an
 * unstructured per-thread {@link ScopeStack} overlay for {@link RequestContext#open()}. The newer of the
 * two wins: a {@code run}/{@code call} inside an open scope is current while it runs; a scope opened inside
 * a {@code run}/{@code call} is current until it is closed (or until the {@code run}/{@code call} returns).
 * Subclasses only say where the binding lives.
 */
abstract class LayeredStorage implements ContextStorage {
  private final ScopeStack overlay = new ScopeStack(this::protectedDepth);

  /** The binding of the innermost enclosing {@code run}/{@code call}, null when none. */
  abstract @Nullable Binding binding();

  /** Runs {@code task} with {@code binding} visible to {@link #binding()}, restoring the previous after. */
  abstract void runBound(Binding binding, Runnable task);

  /** Calls {@code task} with {@code binding} visible to {@link #binding()}, restoring the previous after. */
  abstract <T> T callBound(Binding binding, Callable<T> task) throws Exception;

  private int protectedDepth() {
    Binding binding = binding();
    return binding == null || binding.thread != Thread.currentThread() ? 0 : binding.overlayDepth;
  }

  @Override
  public final RequestContext current() {
    ScopeStack.Frame top = overlay.top();
    Binding binding = binding();
    if (binding != null && (top == null || !binding.isOlderThan(top))) {
      return binding.context;
    }
    return top == null ? RequestContext.empty() : top.context();
  }

  /** {@code current().requestId()} without building a reused frame's context. */
  final @Nullable String currentRequestId() {
    ScopeStack.Frame top = overlay.top();
    Binding binding = binding();
    if (binding != null && (top == null || !binding.isOlderThan(top))) {
      return binding.context.requestId();
    }
    return top == null ? null : top.requestId();
  }

  /** {@code current().modelName()} without building a reused frame's context. */
  final @Nullable String currentModelName() {
    ScopeStack.Frame top = overlay.top();
    Binding binding = binding();
    if (binding != null && (top == null || !binding.isOlderThan(top))) {
      return binding.context.modelName();
    }
    return top == null ? null : top.modelName();
  }

  /** The per-thread stack of {@link RequestContext#open()} scopes. */
  final ScopeStack overlay() {
    return overlay;
  }

  @Override
  public final RequestContext.Scope open(RequestContext context) {
    return overlay.push(context);
  }

  @Override
  public final void run(RequestContext context, Runnable task) {
    int depth = overlay.depth();
    Mdc.Snapshot mdc = Mdc.enter(context);
    try {
      runBound(new Binding(context, Thread.currentThread(), depth), task);
    } finally {
      overlay.closeLeakedAbove(depth);
      mdc.restore();
      overlay.closeDeferred();
    }
  }

  @Override
  public final <T> T call(RequestContext context, Callable<T> task) throws Exception {
    int depth = overlay.depth();
    Mdc.Snapshot mdc = Mdc.enter(context);
    try {
      return callBound(new Binding(context, Thread.currentThread(), depth), task);
    } finally {
      overlay.closeLeakedAbove(depth);
      mdc.restore();
      overlay.closeDeferred();
    }
  }

  /** A {@code run}/{@code call} binding: its context and the overlay depth of its thread when it began. */
  static final class Binding {
    final RequestContext context;
    private final Thread thread;
    private final int overlayDepth;

    Binding(RequestContext context, Thread thread, int overlayDepth) {
      this.context = context;
      this.thread = thread;
      this.overlayDepth = overlayDepth;
    }

    /**
     * True when {@code top} was opened after this binding began. A binding inherited by another thread
     * (a {@code StructuredTaskScope} fork) is older than every scope that thread opens.
     */
    boolean isOlderThan(ScopeStack.Frame top) {
      return top.depth > overlayDepth || thread != Thread.currentThread();
    }
  }
}
