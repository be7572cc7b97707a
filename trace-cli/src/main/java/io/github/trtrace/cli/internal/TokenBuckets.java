package io.github.trtrace.cli.internal;

/**
 * Fixed input-length buckets: 64 tokens wide up to 2,048, 256 wide up to 8,192, 1,024 wide up to
 * 32,768, 8,192 wide up to 131,072, then one open bucket. Fine where prompts usually are, bounded
 * everywhere.
 */
final class TokenBuckets {
  private static final long[][] RANGES = {{0, 2048, 64}, {2048, 8192, 256}, {8192, 32768, 1024}, {32768, 131072, 8192}};
  static final int COUNT;

  static {
    int n = 1;
    for (long[] r : RANGES) {
      n += (int) ((r[1] - r[0]) / r[2]);
    }
    COUNT = n;
  }

  private TokenBuckets() {}

  static int index(long tokens) {
    int base = 0;
    for (long[] r : RANGES) {
      if (tokens < r[1]) {
        return base + (int) ((Math.max(tokens, r[0]) - r[0]) / r[2]);
      }
      base += (int) ((r[1] - r[0]) / r[2]);
    }
    return base;
  }

  static Stats.Bucket[] create() {
    Stats.Bucket[] b = new Stats.Bucket[COUNT];
    int i = 0;
    for (long[] r : RANGES) {
      for (long lo = r[0]; lo < r[1]; lo += r[2]) {
        b[i++] = new Stats.Bucket(lo, lo + r[2]);
      }
    }
    b[i] = new Stats.Bucket(RANGES[RANGES.length - 1][1], Long.MAX_VALUE);
    return b;
  }
}
