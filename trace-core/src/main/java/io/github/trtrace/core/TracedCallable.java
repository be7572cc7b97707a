package io.github.trtrace.core;

/**
 * The body of a traced request that returns a value: {@link InferenceTracer#call(String,
 * TracedCallable)}. It may throw {@code E}; the trace records it and the tracer rethrows it unchanged.
 *
 * <pre>{@code
 * String answer = tracer.call("llama-8b", t -> engine.generate(prompt));
 * }</pre>
 *
 * @param <T> the result
 * @param <E> what the body may throw (checked exceptions included)
 */
@FunctionalInterface
public interface TracedCallable<T, E extends Throwable> {
  /** Handles the request under {@code trace}. */
  T call(InferenceTrace trace) throws E;
}
