package io.github.trtrace.core.context;

import java.util.concurrent.Callable;

/**
 * Where the current {@link RequestContext} lives. Chosen once per JVM by {@link ContextStorages}.
 * Implementations never hold a context in a global mutable static: only in a {@link ThreadLocal} or a
 * {@code ScopedValue}, so threads never see each other's context.
 */
interface ContextStorage {

  /** {@code "threadlocal"} or {@code "scopedvalue"}. */
  String name();

  /** The context current on this thread, the empty context when none; never null. */
  RequestContext current();

  /** Makes {@code context} current until the returned scope is closed (unstructured). */
  RequestContext.Scope open(RequestContext context);

  /** Runs {@code task} with {@code context} current (structured), restoring the previous one after. */
  void run(RequestContext context, Runnable task);

  /** Calls {@code task} with {@code context} current (structured), restoring the previous one after. */
  <T> T call(RequestContext context, Callable<T> task) throws Exception;
}
