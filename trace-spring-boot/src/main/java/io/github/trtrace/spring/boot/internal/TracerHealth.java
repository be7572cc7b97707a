package io.github.trtrace.spring.boot.internal;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.TracerStats.SinkStats;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The tracer's health, independent of the Boot line (Boot 4 and Boot 3 have their health types in different
 * packages; {@link Boot4HealthIndicator} and {@link Boot3Health} adapt this). DOWN when the dispatcher
 * refused records because it stopped, or when a sink is failing: its failure count grew since the previous
 * check, or it failed at the previous check and has written nothing since. Thread-safe.
 */
public final class TracerHealth {
  /** Health status and details. */
  public record Result(boolean up, Map<String, Object> details) {}

  private final InferenceTracer tracer;
  private final Map<String, long[]> lastBySink = new HashMap<>(); // failures, written, failing (0/1)
  private long lastDroppedClosed;

  public TracerHealth(InferenceTracer tracer) {
    this.tracer = tracer;
  }

  public synchronized Result check() {
    TracerStats s = tracer.stats();
    Map<String, Object> details = new LinkedHashMap<>();
    boolean up = true;
    long droppedClosed = s.dispatcher().droppedClosed();
    if (droppedClosed > lastDroppedClosed) {
      up = false;
      details.put("dispatcher", "stopped: " + (droppedClosed - lastDroppedClosed)
          + " records refused since the last check (the tracer is closed or a fatal error stopped its worker)");
    }
    lastDroppedClosed = droppedClosed;
    Map<String, Object> sinks = new LinkedHashMap<>();
    for (Map.Entry<String, SinkStats> e : s.sinks().entrySet()) {
      SinkStats sink = e.getValue();
      long[] last = lastBySink.getOrDefault(e.getKey(), new long[3]);
      boolean failing = sink.failures() > last[0] || (last[2] == 1 && sink.written() == last[1]);
      lastBySink.put(e.getKey(), new long[] {sink.failures(), sink.written(), failing ? 1 : 0});
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("status", failing ? "failing" : "ok");
      d.put("written", sink.written());
      d.put("lost", sink.lost());
      d.put("failures", sink.failures());
      if (sink.lastError() != null) {
        d.put("lastError", sink.lastError());
      }
      sinks.put(e.getKey(), d);
      up &= !failing;
    }
    details.put("sinks", sinks);
    details.put("queued", s.dispatcher().queued());
    details.put("dropped", s.dispatcher().dropped());
    return new Result(up, details);
  }
}
