/**
 * OpenTelemetry for trtrace: one GenAI SERVER span per traced request with child spans for its
 * stages, TensorRT messages as span events, the GenAI server metrics and the SDK's health as OTel
 * metrics, and W3C trace-context extraction. Depends on the OpenTelemetry API only; the host passes
 * its own {@code OpenTelemetry}.
 *
 * <pre>{@code
 * TrtraceOpenTelemetry otel = TrtraceOpenTelemetry.create(openTelemetry);
 * InferenceTracer tracer = InferenceTracer.builder().listener(otel).fromEnvironment().build();
 * otel.observe(tracer);                                  // SDK health gauges
 * }</pre>
 */
@NullMarked
package io.github.trtrace.otel;

import org.jspecify.annotations.NullMarked;
