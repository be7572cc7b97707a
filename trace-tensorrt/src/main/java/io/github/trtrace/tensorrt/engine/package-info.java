/**
 * Pure-Java run-time seams of the traced engine: context pool, profiling policy, per-layer tables.
 *
 * <pre>{@code
 * try (ContextPool.Lease<Ctx> lease = pool.borrow(Duration.ofMillis(50))) { run(lease.context()); }
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.engine;

import org.jspecify.annotations.NullMarked;
