package io.github.trtrace.examples;

/** Demo traffic: prompts of varied length, a few hostile headers and inputs. */
final class Prompts {
  private static final String[] TEXTS = {
    "Summarise the attached meeting notes in three bullet points.",
    "Translate to French: the quick brown fox jumps over the lazy dog.",
    "Write a haiku about GPUs waiting for work.",
    "Explain the difference between latency and throughput for an inference service, with an example"
        + " of each and a note on how batching trades one for the other.",
    "My card number is 4111 1111 1111 1111 and my e-mail is alice@example.com, why was I charged twice?",
    "Rewrite this so it reads right to left: \u202Edlrow olleh\u202C please",
    "Hidden\u200Bzero\u200Bwidth\u200Bspaces in this prompt",
    "Classify the sentiment of: I waited forty seconds for this answer.",
  };

  private Prompts() {}

  static String prompt(int i) {
    if (i % 97 == 13) {
      return "binary junk \u0000\u0001 from a broken client";
    }
    String base = TEXTS[i % TEXTS.length];
    int repeat = 1 + (i * 7919) % 6; // input length varies, so does the work
    return (base + " ").repeat(repeat).trim();
  }

  /** The request's deadline: a few callers are impatient, so their requests time out. */
  static java.time.Duration deadline(int i) {
    return i % 41 == 5 ? java.time.Duration.ofNanos(1) : java.time.Duration.ofSeconds(5);
  }

  /** The caller's X-Request-ID: usually valid, sometimes missing, sometimes hostile. */
  static String header(int i) {
    if (i % 50 == 7) {
      return "evil\r\nX-Injected: yes";
    }
    if (i % 10 == 3) {
      return null;
    }
    return "api-demo-" + i;
  }
}
