/**
 * trtrace core: per-request tracing for inference services.
 *
 * <pre>{@code
 * InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(Path.of("logs/inference.log")).build();
 * try (InferenceTrace t = tracer.start("llama-8b")) {
 *   try (var s = t.stage(Stage.INFER)) { engine.run(input); }
 *   t.outputTokens(80);
 * }
 * }</pre>
 */
@NullMarked
package io.github.trtrace.core;

import org.jspecify.annotations.NullMarked;
