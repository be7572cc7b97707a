package com.example.consumer;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.context.RequestIds;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The README's Quickstart as a user's program: the code between the markers is the README block; around it, the
 * user's own request, tokenizer and engine (a whitespace tokenizer and a small real computation).
 *
 * <p>{@code java com.example.consumer.Quickstart <log file> <X-Request-ID> <prompt>}
 */
public final class Quickstart {

  private final Request request;
  private final String prompt;
  private final Tokenizer tokenizer = text -> Arrays.stream(text.split("\\s+")).mapToInt(String::hashCode).toArray();
  private final Engine engine = new Engine();
  private int[] ids = new int[0];
  private int remaining;

  private Quickstart(Request request, String prompt) {
    this.request = request;
    this.prompt = prompt;
  }

  public static void main(String[] args) {
    if (args.length != 3) {
      throw new IllegalArgumentException("usage: Quickstart <log file> <X-Request-ID> <prompt>");
    }
    String header = args[1];
    new Quickstart(name -> RequestIds.HEADER.equals(name) ? header : null, args[2]).run(Path.of(args[0]));
  }

  private void run(Path logFile) {
    // --- README Quickstart (with the log path as an argument)
    try (InferenceTracer tracer = InferenceTracer.builder()
        .fromEnvironment()                                   // TRTRACE_* settings
        .jsonLinesFile(logFile)
        .build()) {                                          // close() drains

      RequestIds.accept(request.header(RequestIds.HEADER)).toContext().model("llama-8b").run(() -> {
        try (InferenceTrace t = tracer.start("llama-8b")) {    // queue time starts here
          t.input(prompt);                                     // input_flags; no text kept by default
          try (var s = t.stage(Stage.PREPROCESS)) { ids = tokenizer.encode(prompt); }
          t.inputTokens(ids.length);
          try (var s = t.stage(Stage.INFER)) { engine.run(ids); }
          try (var s = t.stage(Stage.DECODE)) { while (next()) t.token(); }  // ttft_ms, tpot_ms
        }
      });
    }
    // --- end of the README Quickstart
  }

  private boolean next() {
    if (remaining <= 0) {
      return false;
    }
    remaining--;
    return true;
  }

  interface Request {
    String header(String name);
  }

  interface Tokenizer {
    int[] encode(String text);
  }

  /** Stands in for the user's engine: a small real computation, then one output token per input token. */
  private final class Engine {
    long checksum;

    void run(int[] input) {
      for (int round = 0; round < 1_000; round++) {
        for (int id : input) {
          checksum = checksum * 31 + id + round;
        }
      }
      remaining = input.length;
    }
  }
}
