package io.github.trtrace.core.context;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link RequestContext#wrap(ScheduledExecutorService)}: every task, scheduled ones and each run of a periodic
 * one included, runs under the context current when it was submitted.
 */
final class ContextScheduledExecutorService implements ScheduledExecutorService {
  private final ScheduledExecutorService delegate;
  /** The executor-service half, as {@link RequestContext#wrap(java.util.concurrent.ExecutorService)} wraps it. */
  private final ContextExecutorService tasks;

  ContextScheduledExecutorService(ScheduledExecutorService delegate) {
    this.delegate = delegate;
    this.tasks = new ContextExecutorService(delegate);
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

  @Override
  public void execute(Runnable command) {
    tasks.execute(command);
  }

  @Override
  public <T> Future<T> submit(Callable<T> task) {
    return tasks.submit(task);
  }

  @Override
  public <T> Future<T> submit(Runnable task, T result) {
    return tasks.submit(task, result);
  }

  @Override
  public Future<?> submit(Runnable task) {
    return tasks.submit(task);
  }

  @Override
  public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> all) throws InterruptedException {
    return tasks.invokeAll(all);
  }

  @Override
  public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> all, long timeout, TimeUnit unit)
      throws InterruptedException {
    return tasks.invokeAll(all, timeout, unit);
  }

  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> all) throws InterruptedException, ExecutionException {
    return tasks.invokeAny(all);
  }

  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> all, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    return tasks.invokeAny(all, timeout, unit);
  }

  @Override
  public void shutdown() {
    delegate.shutdown();
  }

  @Override
  public List<Runnable> shutdownNow() {
    return delegate.shutdownNow();
  }

  @Override
  public boolean isShutdown() {
    return delegate.isShutdown();
  }

  @Override
  public boolean isTerminated() {
    return delegate.isTerminated();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return delegate.awaitTermination(timeout, unit);
  }

  @Override
  public String toString() {
    return "RequestContext.wrap(" + delegate + ")";
  }
}
