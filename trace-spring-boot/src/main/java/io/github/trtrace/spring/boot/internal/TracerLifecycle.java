package io.github.trtrace.spring.boot.internal;

import io.github.trtrace.core.InferenceTracer;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the tracer when the application context stops, after the web server: Spring stops lifecycles from
 * the highest phase down, and Boot's graceful shutdown ({@code DEFAULT_PHASE - 1024}) and web server stop
 * ({@code DEFAULT_PHASE - 2048}) run before {@link #PHASE}. So a request answered during the drain still
 * leaves its record, and what is queued is then written within the tracer's close timeout.
 */
public final class TracerLifecycle implements SmartLifecycle {
  /** Below Boot's web server start/stop phase ({@code SmartLifecycle.DEFAULT_PHASE - 2048}). */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final InferenceTracer tracer;
  private volatile boolean running;

  public TracerLifecycle(InferenceTracer tracer) {
    this.tracer = tracer;
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    tracer.close();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
