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
 */
@NullMarked
package io.github.trtrace.core;

import org.jspecify.annotations.NullMarked;
