package io.github.trtrace.benchmarks.peers;

/**
 * The one request every SDK in the caller-cost comparison records: the same request ID scheme, the
 * same model, the same 15 fields with the same values, the same five timed parts (request, queue,
 * preprocess, infer, decode). Keeping it in one place is what makes the comparison fair.
 */
final class RequestShape {
  static final String MODEL = "llama-8b";
  static final int INPUT_TOKENS = 128;
  static final int OUTPUT_TOKENS = 64;
  static final double GPU_MS = 4.25;
  static final String FINGERPRINT = "sha256:0f1e2d";
  static final String TENANT = "acme";
  static final String ROUTE = "/v1/chat";
  static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String SPAN_ID = "00f067aa0ba902b7";
  private static final String[] IDS = new String[1024];

  static {
    for (int i = 0; i < IDS.length; i++) {
      IDS[i] = "req-bench-" + i;
    }
  }

  private RequestShape() {}

  /** A request ID from a fixed pool (no string building on the measured path, for every SDK alike). */
  static String requestId(long n) {
    return IDS[(int) (n & 1023)];
  }
}
