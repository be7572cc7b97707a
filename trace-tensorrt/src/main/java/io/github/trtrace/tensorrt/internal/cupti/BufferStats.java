package io.github.trtrace.tensorrt.internal.cupti;

/**
 * CUPTI's buffer requests.
 *
 * @param requests requests CUPTI made
 * @param refused of those, answered with no buffer (max outstanding: CUPTI drops and counts what it could not write)
 * @param made buffers made (warm-up included); the rest of the requests reused one
 * @param requestNanos time spent answering requests, summed (on whatever thread CUPTI asked)
 * @param maxRequestNanos the slowest request
 * @param slow requests slower than 50 us (the kernel check allows 100 us a launch)
 */
public record BufferStats(long requests, long refused, long made, long requestNanos, long maxRequestNanos, long slow) {
  /** All zero. */
  public static final BufferStats NONE = new BufferStats(0, 0, 0, 0, 0, 0);

  @Override
  public String toString() {
    return String.format(java.util.Locale.ROOT,
        "BufferStats[requests=%d, refused=%d, made=%d, mean request %.1f us, max %.1f us, slow (> %d us) %d]",
        requests, refused, made, requests == 0 ? 0.0 : requestNanos / 1e3 / requests, maxRequestNanos / 1e3,
        BufferPool.SLOW_NANOS / 1000, slow);
  }
}
