package io.github.trtrace.spring.boot;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.spring.boot.internal.EngineFingerprints;
import io.github.trtrace.spring.boot.internal.TracerHealth;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/trtrace}: the tracer's counters (traces, records written, dropped, lost, sampled out),
 * per-sink state, the sampling settings in effect and the engine fingerprint last seen per model. Expose it
 * with {@code management.endpoints.web.exposure.include=health,trtrace}.
 *
 * <pre>{@code
 * curl localhost:8080/actuator/trtrace
 * }</pre>
 */
@Endpoint(id = "trtrace")
public final class TrtraceEndpoint {
  private final InferenceTracer tracer;
  private final TrtraceProperties properties;
  private final EngineFingerprints fingerprints;
  private final TracerHealth health;

  TrtraceEndpoint(
      InferenceTracer tracer, TrtraceProperties properties, EngineFingerprints fingerprints, TracerHealth health) {
    this.tracer = tracer;
    this.properties = properties;
    this.fingerprints = fingerprints;
    this.health = health;
  }

  /** The endpoint's JSON. */
  @ReadOperation
  public Map<String, Object> trtrace() {
    TracerStats s = tracer.stats();
    Map<String, Object> m = new LinkedHashMap<>();
    Map<String, Object> counters = new LinkedHashMap<>();
    counters.put("started", s.started());
    counters.put("ended", s.ended());
    counters.put("sampledOut", s.sampledOut());
    counters.put("enqueued", s.enqueued());
    counters.put("recordErrors", s.recordErrors());
    counters.put("misuse", s.misuse());
    counters.put("droppedQueueFull", s.dispatcher().droppedQueueFull());
    counters.put("droppedBlockTimeout", s.dispatcher().droppedBlockTimeout());
    counters.put("droppedClosed", s.dispatcher().droppedClosed());
    counters.put("queued", s.dispatcher().queued());
    m.put("counters", counters);
    TracerHealth.Result h = health.check();
    m.put("status", h.up() ? "UP" : "DOWN");
    m.put("health", h.details());
    Map<String, Object> sampling = new LinkedHashMap<>();
    sampling.put("rate", properties.getSample().getRate() == null ? 1.0 : properties.getSample().getRate());
    sampling.put("slowThresholdMs",
        properties.getSlow().getMs() == null ? "per-model p99" : properties.getSlow().getMs());
    m.put("sampling", sampling);
    m.put("engineFingerprints", fingerprints.byModel());
    return m;
  }
}
