package io.github.trtrace.core.context;

import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@link RequestContext#wrap(ScheduledExecutorService)}: every task, scheduled ones and each run of a periodic
 * one included, runs under the context current when it was submitted; the executor-service methods and the
 * lifecycle are {@link ContextExecutorService}'s.
 */
final class ContextScheduledExecutorService extends ContextExecutorService implements ScheduledExecutorService {
  private final ScheduledExecutorService delegate;

  ContextScheduledExecutorService(ScheduledExecutorService delegate) {
    super(delegate);
    this.delegate = delegate;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return delegate.schedule(RequestContext.wrap(command), delay, unit);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return delegate.schedule(RequestContext.wrap(callable), delay, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    return delegate.scheduleAtFixedRate(RequestContext.wrap(command), initialDelay, period, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return delegate.scheduleWithFixedDelay(RequestContext.wrap(command), initialDelay, delay, unit);
  }
}
