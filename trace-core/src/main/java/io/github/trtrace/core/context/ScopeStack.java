package io.github.trtrace.core.context;

import io.github.trtrace.core.internal.context.ContextAccess.ReusableScope;
import java.util.Map;
import java.util.function.IntSupplier;
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
 *   <li>scopes opened inside {@code run}/{@code call} and still open when it returns are closed then;
 *   <li>a scope opened before a {@code run}/{@code call} and closed inside it stays in place until that
 *       {@code run}/{@code call} returns, then closes (the structured context must stay current while it
 *       runs).
 * </ul>
 */
final class ScopeStack {
  /**
   * Strict mode (system property {@value #STRICT_PROPERTY}{@code =true}, as OpenTelemetry's {@code
   * StrictContextStorage}): every scope records where it was opened, and every misuse (closed on
   * another thread, left open by a {@code run}/{@code call}, closed out of order or inside a later
   * {@code run}/{@code call}) is logged at ERROR, each time, with the opening stack trace, and counted
   * ({@link #strictReports()}). Meant for tests and staging: it costs a stack trace per scope.
   */
  static final String STRICT_PROPERTY = "trtrace.context.strict";

  static final boolean STRICT = Boolean.getBoolean(STRICT_PROPERTY);
  private static final java.util.concurrent.atomic.AtomicLong STRICT_REPORTS = new java.util.concurrent.atomic.AtomicLong();

  private final ThreadLocal<@Nullable Frame> top = new ThreadLocal<>();
  private final IntSupplier protectedDepth;

  /**
   * @param protectedDepth the overlay depth at which the innermost {@code run}/{@code call} of the calling
   *     thread began (0 when none): scopes at or below it are closed only after it returns
   */
  ScopeStack(IntSupplier protectedDepth) {
    this.protectedDepth = protectedDepth;
  }

  /** Misuses reported in strict mode since the JVM started. */
  static long strictReports() {
    return STRICT_REPORTS.get();
  }

  /** Logs a misuse: rate limited normally; in strict mode every time, with where {@code f} was opened. */
  private static void misuse(Frame f, String format, Object... args) {
    if (f.opened == null) {
      ContextLog.MISUSE.warn(format, args);
      return;
    }
    STRICT_REPORTS.incrementAndGet();
    Object[] withCause = java.util.Arrays.copyOf(args, args.length + 1);
    withCause[args.length] = f.opened;
    ContextLog.LOG.error("[strict] " + format + "; the scope was opened at:", withCause);
  }

  @Nullable Frame top() {
    return top.get();
  }

  int depth() {
    Frame f = top.get();
    return f == null ? 0 : f.depth;
  }

  Frame push(RequestContext context) {
    Frame frame = new Frame(this);
    frame.push(top.get(), context, context.requestId(), context.modelName(), context.attributes());
    top.set(frame);
    return frame;
  }

  /**
   * Pushes {@code frame} again (a {@link ReusableScope}'s), its context to be built only when asked
   * for; {@code null} or a frame still on a stack (its close deferred) gets a new frame. Returns the
   * frame pushed.
   */
  Frame pushReusable(@Nullable Frame frame, String requestId, @Nullable String modelName, Map<String, String> attributes) {
    Frame f = frame == null || !frame.released() ? new Frame(this) : frame;
    f.push(top.get(), null, requestId, modelName, attributes);
    top.set(f);
    return f;
  }

  /** Closes the scopes deeper than {@code depth}, left open by the code of a {@code run}/{@code call}. */
  void closeLeakedAbove(int depth) {
    Frame f = top.get();
    if (f == null || f.depth <= depth) {
      return;
    }
    misuse(f,
        "RequestContext scope opened inside run/call was not closed; closing it when run/call returns ({})",
        f.context());
    while (f != null && f.depth > depth) {
      f.release();
      f = f.parent;
    }
    setTop(f);
  }

  void close(Frame frame) {
    if (frame.closed || frame.deferred) {
      return;
    }
    if (frame.owner != Thread.currentThread()) {
      misuse(frame,
          "RequestContext scope closed on thread {} but opened on {}: ignored, close it on its own thread"
              + " (until then its context and MDC stay current there)",
          Thread.currentThread().getName(),
          frame.owner.getName());
      return;
    }
    if (frame.depth <= protectedDepth.getAsInt()) {
      frame.deferred = true;
      misuse(frame,
          "RequestContext scope closed inside a run/call that began after it was opened: it closes when that"
              + " run/call returns ({})",
          frame.context());
      return;
    }
    Frame f = top.get();
    // Each scope left open inside the closed one is the misuse, reported where it was opened (the closed
    // one may be a tracer's own scope around a run/call body: its stack says nothing of the leak).
    while (f != null && f != frame) {
      misuse(f,
          "RequestContext scope left open inside another scope ({}) that was closed: closed with it ({})",
          frame.context(),
          f.context());
      f.release();
      f = f.parent;
    }
    frame.release();
    setTop(frame.parent);
    closeDeferred();
  }

  /** Closes the scopes on top whose close was deferred and whose {@code run}/{@code call} has returned. */
  void closeDeferred() {
    Frame f = top.get();
    if (f == null || !f.deferred) {
      return;
    }
    int floor = protectedDepth.getAsInt();
    while (f != null && f.deferred && f.depth > floor) {
      f.release();
      f = f.parent;
    }
    setTop(f);
  }

  /**
   * Sets the top; an empty stack is a null value, not a removed entry: removing and setting again
   * made a new thread-local map entry per request (issue 10). The entry costs the thread one slot.
   */
  private void setTop(@Nullable Frame frame) {
    top.set(frame);
  }

  /**
   * One {@link RequestContext#open()}: the context, the scope below it and the MDC values it replaced
   * (the frame is the {@link Mdc.Snapshot}, so that opening makes one object). A {@link ReusableScope}'s
   * frame is pushed again and again, its context built on demand ({@link #context()}).
   */
  static final class Frame extends Mdc.Snapshot implements RequestContext.Scope {
    final ScopeStack stack;
    Thread owner;
    @Nullable Frame parent;
    int depth;
    private @Nullable RequestContext context;
    private String requestId = "";
    private @Nullable String modelName;
    private Map<String, String> attributes = Map.of();
    /** Where it was opened, in strict mode only. */
    @Nullable Throwable opened;
    boolean closed;
    boolean deferred;

    Frame(ScopeStack stack) {
      this.stack = stack;
      this.owner = Thread.currentThread();
    }

    void push(@Nullable Frame parent, @Nullable RequestContext context, @Nullable String requestId,
        @Nullable String modelName, Map<String, String> attributes) {
      this.owner = Thread.currentThread();
      this.parent = parent;
      this.depth = parent == null ? 1 : parent.depth + 1;
      this.context = context;
      this.requestId = requestId == null ? "" : requestId;
      this.modelName = modelName;
      this.attributes = attributes;
      this.opened = STRICT ? new Throwable("RequestContext scope opened on " + owner.getName()) : null;
      this.closed = false;
      this.deferred = false;
      enter(requestId, modelName);
    }

    /** The frame's context; a reused frame builds it on first use (until it is pushed again). */
    RequestContext context() {
      RequestContext c = context;
      if (c == null) {
        c = context = new DefaultRequestContext(requestId, modelName, attributes, null);
      }
      return c;
    }

    @Nullable String requestId() {
      return context != null ? context.requestId() : requestId;
    }

    @Nullable String modelName() {
      return context != null ? context.modelName() : modelName;
    }

    /** Closed and off every stack (not waiting for a deferred close): free to be pushed again. */
    boolean released() {
      return closed && !deferred;
    }

    void release() {
      closed = true;
      deferred = false;
      restore();
    }

    @Override
    public void close() {
      stack.close(this);
    }

    @Override
    public String toString() {
      return "Scope{" + context() + (closed ? ", closed}" : "}");
    }
  }
}
