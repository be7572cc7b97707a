package io.github.trtrace.core;

/**
 * The body of a traced request that returns nothing: {@link InferenceTracer#run(String,
 * TracedRunnable)}. It may throw {@code E}; the trace records it and the tracer rethrows it unchanged.
 *
 * <pre>{@code
 * tracer.run("llama-8b", t -> stream(engine, prompt, response));
 * }</pre>
 *
 * @param <E> what the body may throw (checked exceptions included)
 */
@FunctionalInterface
public interface TracedRunnable<E extends Throwable> {
  /** Handles the request under {@code trace}. */
  void run(InferenceTrace trace) throws E;
}
