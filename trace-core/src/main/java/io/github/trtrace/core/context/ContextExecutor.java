package io.github.trtrace.core.context;

import java.util.concurrent.Executor;

/** {@link RequestContext#wrap(Executor)}: each command runs under its submitter's context. */
final class ContextExecutor implements Executor {
  private final Executor delegate;

  ContextExecutor(Executor delegate) {
    this.delegate = delegate;
  }

  @Override
  public void execute(Runnable command) {
    delegate.execute(RequestContext.wrap(command));
  }

  @Override
  public String toString() {
    return "RequestContext.wrap(" + delegate + ")";
  }
}
