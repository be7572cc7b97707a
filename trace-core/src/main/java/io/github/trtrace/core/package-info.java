/**
 * trtrace core: per-request tracing for inference services.
 *
 * <pre>{@code
 * InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(Path.of("logs/inference.log")).build();
 * String answer = tracer.call("llama-8b", t -> {           // a throwable is recorded and rethrown
 *   String text = t.callStage(Stage.DECODE, () -> engine.generate(input, t::token));
 *   t.output(text);
 *   return text;
 * });
 * }</pre>
 *
 * <h2>Names</h2>
 *
 * <ul>
 *   <li>{@link io.github.trtrace.core.InferenceTracer} (one per application) makes {@link
 *       io.github.trtrace.core.InferenceTrace}s (one per request), as OpenTelemetry's {@code Tracer}
 *       makes {@code Span}s. The two names differ by one letter; they were kept (decision for 0.1)
 *       because each says what it is, the tracer is built once and then mostly seen through {@code
 *       call}/{@code run}, whose lambda parameter is the trace, and the types rarely appear side by
 *       side in user code. The README and the javadoc always say "tracer" and "trace".
 *   <li>Closeables with a thread rule are called scopes and share one rule: {@link
 *       io.github.trtrace.core.TraceScope} ({@link io.github.trtrace.core.InferenceTrace#makeCurrent()})
 *       and {@link io.github.trtrace.core.context.RequestContext.Scope} ({@code RequestContext.open()})
 *       make something current on one thread and are closed on that thread, innermost first. {@link
 *       io.github.trtrace.core.InferenceTrace.StageTimer} ({@code t.stage(...)}) makes nothing current
 *       and may be closed on any thread; it is a timer, not a scope.
 * </ul>
 */
@NullMarked
package io.github.trtrace.core;

import org.jspecify.annotations.NullMarked;
