/**
 * Test support for code that records requests with trtrace (add {@code trace-testing} at test
 * scope): {@link io.github.trtrace.testing.InMemorySink} keeps records for assertions, and {@link
 * io.github.trtrace.testing.RecordSinkContractTest} is the contract a {@link
 * io.github.trtrace.core.sink.RecordSink} passes.
 *
 * <pre>{@code
 * InMemorySink sink = InMemorySink.create();
 * try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).build()) {
 *   tracer.run("llama-8b", t -> t.outputTokens(3));
 * }
 * assertThat(sink.records()).singleElement().extracting(InferenceRecord::outputTokens).isEqualTo(3);
 * }</pre>
 */
@NullMarked
package io.github.trtrace.testing;

import org.jspecify.annotations.NullMarked;
