package com.example.consumer;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.context.RequestIds;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A user's program that runs the README's Quickstart: the code between the markers is the README block (release-checks'
 * {@code DocsTest} checks it line by line); around it, the user's own request, tokenizer and engine (a whitespace
 * tokenizer and a small real computation).
 *
 * <p>{@code java com.example.consumer.ConsumerApp <log file> <X-Request-ID> <prompt>}
 */
public final class ConsumerApp {

  private final Request request;
  private final Response response = (name, value) -> System.out.println("response header " + name + ": " + value);
  private final String prompt;
  private final Tokenizer tokenizer = text -> Arrays.stream(text.split("\\s+")).mapToInt(String::hashCode).toArray();
  private final Engine engine = new Engine();

  private ConsumerApp(Request request, String prompt) {
    this.request = request;
    this.prompt = prompt;
  }

  public static void main(String[] args) {
    if (args.length != 3) {
      throw new IllegalArgumentException("usage: ConsumerApp <log file> <X-Request-ID> <prompt>");
    }
    String header = args[1];
    new ConsumerApp(name -> RequestIds.HEADER.equals(name) ? header : null, args[2]).run(Path.of(args[0]));
  }

  private void run(Path logFile) {
    try (InferenceTracer tracer = InferenceTracer.builder()
        .jsonLinesFile(logFile)
        .fromEnvironment()                                   // TRTRACE_* settings
        .build()) {                                          // close() drains
      // --- README Quickstart (the per-request part)
      String answer = tracer.call("llama-8b", request.getHeader(RequestIds.HEADER), t -> {
        response.setHeader(RequestIds.HEADER, t.requestId());  // the ID the record carries
        t.input(prompt);                                       // input_flags; no text kept by default
        int[] ids = t.callStage(Stage.PREPROCESS, () -> tokenizer.encode(prompt));
        t.inputTokens(ids.length);
        String text = t.callStage(Stage.DECODE, () -> engine.generate(ids, t::token));  // ttft_ms, tpot_ms
        t.output(text);                                        // output_flags (garbled-output hints)
        return text;
      });
      // --- end of the README Quickstart
      System.out.println("answer: " + answer);
    }
  }

  interface Request {
    String getHeader(String name);
  }

  interface Response {
    void setHeader(String name, String value);
  }

  interface Tokenizer {
    int[] encode(String text);
  }

  /** Stands in for the user's engine: a small real computation, then one output token per input token. */
  private static final class Engine {
    long checksum;

    String generate(int[] input, Runnable onToken) {
      StringBuilder out = new StringBuilder();
      for (int round = 0; round < 1_000; round++) {
        for (int id : input) {
          checksum = checksum * 31 + id + round;
        }
      }
      for (int i = 0; i < input.length; i++) {
        onToken.run();
        out.append(i == 0 ? "" : " ").append(Long.toHexString(checksum >>> i));
      }
      return out.toString();
    }
  }
}
