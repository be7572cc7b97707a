/**
 * The traced engine and its pure-Java seams: profiling policy, per-layer tables, pool counters.
 *
 * <pre>{@code
 * TracedEngine engine = TracedEngine.builder(cudaEngine).contexts(4).build();
 * ContextPoolStats pool = engine.poolStats();
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.engine;

import org.jspecify.annotations.NullMarked;
