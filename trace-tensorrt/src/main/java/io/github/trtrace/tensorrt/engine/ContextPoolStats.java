package io.github.trtrace.tensorrt.engine;

/**
 * Counters of a {@link TracedEngine}'s pool of execution contexts.
 *
 * <pre>{@code
 * ContextPoolStats s = engine.poolStats();
 * if (s.timeouts() > 0) log.warn("{} requests found no free context", s.timeouts());
 * }</pre>
 *
 * @param borrows successful borrows
 * @param waits borrows that found no free slot and had to wait
 * @param timeouts borrows that gave up
 * @param inUse slots leased now
 * @param maxInUse most slots leased at once
 */
public record ContextPoolStats(long borrows, long waits, long timeouts, int inUse, int maxInUse) {}
