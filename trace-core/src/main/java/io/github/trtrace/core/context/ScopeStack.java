package io.github.trtrace.core.context;

import org.jspecify.annotations.Nullable;

/**
 * The per-thread stack of contexts made current by {@link RequestContext#open()}: a linked list of
 * {@link Frame}s whose top lives in a {@link ThreadLocal}.
 *
 * <p>Closing rules, the same for every storage:
 *
 * <ul>
 *   <li>closing the innermost scope restores the context (and MDC values) current before it was opened;
 *   <li>closing a scope that is not innermost also closes every scope opened inside it, innermost first,
 *       so the thread ends up exactly where it was before the closed scope was opened; those inner scopes'
 *       later {@code close()} calls do nothing (logged once as misuse);
 *   <li>a second {@code close()} does nothing;
 *   <li>{@code close()} on another thread than the one that opened the scope does nothing (logged once);
 *   <li>scopes opened inside {@code run}/{@code call} and still open when it returns are closed then.
 * </ul>
 */
final class ScopeStack {
  private final ThreadLocal<@Nullable Frame> top = new ThreadLocal<>();

  @Nullable Frame top() {
    return top.get();
  }

  int depth() {
    Frame f = top.get();
    return f == null ? 0 : f.depth;
  }

  Frame push(RequestContext context) {
    Frame parent = top.get();
    Frame frame = new Frame(this, Thread.currentThread(), parent, context);
    top.set(frame);
    return frame;
  }

  /** Closes the scopes deeper than {@code depth}, left open by the code of a {@code run}/{@code call}. */
  void closeLeakedAbove(int depth) {
    Frame f = top.get();
    if (f == null || f.depth <= depth) {
      return;
    }
    ContextLog.MISUSE.warn(
        "RequestContext scope opened inside run/call was not closed; closing it when run/call returns ({})",
        f.context);
    while (f != null && f.depth > depth) {
      f.release();
      f = f.parent;
    }
    setTop(f);
  }

  void close(Frame frame) {
    if (frame.closed) {
      return;
    }
    if (frame.owner != Thread.currentThread()) {
      ContextLog.MISUSE.warn(
          "RequestContext scope closed on thread {} but opened on {}: ignored, close it on its own thread",
          Thread.currentThread().getName(),
          frame.owner.getName());
      return;
    }
    Frame f = top.get();
    if (f != frame) {
      ContextLog.MISUSE.warn(
          "RequestContext scope closed out of order: scopes opened inside it are closed with it ({})",
          frame.context);
    }
    while (f != null && f != frame) {
      f.release();
      f = f.parent;
    }
    frame.release();
    setTop(frame.parent);
  }

  private void setTop(@Nullable Frame frame) {
    if (frame == null) {
      top.remove();
    } else {
      top.set(frame);
    }
  }

  /** One {@link RequestContext#open()}: the context, the scope below it and the MDC values it replaced. */
  static final class Frame implements RequestContext.Scope {
    final ScopeStack stack;
    final Thread owner;
    final @Nullable Frame parent;
    final int depth;
    final RequestContext context;
    private final Mdc.Snapshot mdc;
    boolean closed;

    Frame(ScopeStack stack, Thread owner, @Nullable Frame parent, RequestContext context) {
      this.stack = stack;
      this.owner = owner;
      this.parent = parent;
      this.depth = parent == null ? 1 : parent.depth + 1;
      this.context = context;
      this.mdc = Mdc.enter(context);
    }

    void release() {
      closed = true;
      mdc.restore();
    }

    @Override
    public void close() {
      stack.close(this);
    }

    @Override
    public String toString() {
      return "Scope{" + context + (closed ? ", closed}" : "}");
    }
  }
}
