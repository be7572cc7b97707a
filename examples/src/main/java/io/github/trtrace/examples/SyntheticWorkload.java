package io.github.trtrace.examples;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TracerStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A synthetic workload without HTTP: traces a few hundred requests through real CPU work (tokenising text,
 * multiplying matrices whose size follows the input length, a token-by-token decode loop) on a
 * worker pool, and writes one JSON line per request to {@code logs/inference.log}.
 *
 * <p>Requests arrive with an {@code X-Request-ID} header (some valid, some hostile), each on its own
 * connection thread traced with the callback form ({@code tracer.call}), queue for one of the
 * model's slots, and a few fail or time out — so the log has something to find.
 */
public final class SyntheticWorkload {

  /** What one run produced. */
  public record Result(Path log, List<String> requestIds, String slowest, String failed, TracerStats stats) {}

  private SyntheticWorkload() {}

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 300;
    Path log = Path.of(args.length > 1 ? args[1] : "logs/inference.log");
    Result r = run(log, requests);
    TracerStats s = r.stats();
    System.out.printf(
        "traced %d requests -> %s (%d records written, %d sampled out, %d dropped, %d lost in a sink)%n",
        s.ended(), r.log().toAbsolutePath(),
        s.sinks().values().stream().mapToLong(k -> k.written()).min().orElse(0), s.sampledOut(),
        s.dispatcher().dropped(), s.sinks().values().stream().mapToLong(k -> k.lost()).sum());
    System.out.println();
    System.out.println("Find one request (a user reports \"this answer was slow\"):");
    System.out.println("  grep " + r.slowest() + " " + log);
    System.out.println("A failed one:");
    System.out.println("  grep " + r.failed() + " " + log);
    System.out.println("Every request whose input carried a right-to-left override (U+202E):");
    System.out.println("  grep '\"bidi_control\"' " + log + " | head -3");
  }

  /** Runs {@code requests} requests and returns when every record is on disk. */
  public static Result run(Path log, int requests) throws IOException, InterruptedException {
    Path parent = log.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.deleteIfExists(log); // one run, one file: every line comes from this run
    FakeModel model = new FakeModel();
    Semaphore slots = new Semaphore(MODEL_SLOTS);
    List<Response> responses = new ArrayList<>();
    TracerStats stats;
    try (InferenceTracer tracer =
        InferenceTracer.builder().jsonLinesFile(log).inputDigest(true).build()) {
      // One thread per connection, as a servlet container has; the model serves MODEL_SLOTS at a time.
      ExecutorService connections = Executors.newFixedThreadPool(CONNECTIONS);
      List<Future<Response>> futures = new ArrayList<>();
      try {
        for (int i = 0; i < requests; i++) {
          String header = Prompts.header(i);
          String prompt = Prompts.prompt(i);
          long deadline = Prompts.deadline(i).toNanos();
          futures.add(connections.submit(() -> handle(tracer, model, slots, header, prompt, deadline)));
        }
        for (Future<Response> f : futures) {
          try {
            responses.add(f.get(60, TimeUnit.SECONDS));
          } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("a request did not complete", e);
          }
        }
      } finally {
        connections.shutdown();
        connections.awaitTermination(30, TimeUnit.SECONDS);
      }
      tracer.flush().orTimeout(30, TimeUnit.SECONDS).join();
      stats = tracer.stats();
    }
    List<String> ids = new ArrayList<>();
    Response slowest = responses.get(0);
    String failed = null;
    for (Response r : responses) {
      ids.add(r.requestId);
      if (r.latencyMs > slowest.latencyMs) {
        slowest = r;
      }
      if (r.latencyMs < 0 && failed == null) {
        failed = r.requestId;
      }
    }
    return new Result(log, ids, slowest.requestId, failed == null ? ids.get(0) : failed, stats);
  }

  private static final int MODEL_SLOTS = 4;
  private static final int CONNECTIONS = 16;

  /** What the service answers: the request ID goes back in {@code X-Request-ID}. */
  private static final class Response {
    String requestId = "";
    double latencyMs = -1;
  }

  /**
   * One connection thread serves one request, traced with {@code tracer.call} as in the README's Quickstart:
   * it records whatever the body throws (a TIMEOUT status set before is kept) and rethrows it.
   */
  private static Response handle(
      InferenceTracer tracer, FakeModel model, Semaphore slots, String header, String prompt, long deadlineNanos) {
    Response response = new Response();
    try {
      response.latencyMs = tracer.call(FakeModel.NAME, header, t -> {
        response.requestId = t.requestId(); // response.setHeader(RequestIds.HEADER, t.requestId())
        // every step sits in a stage, so the stage times add up to latency_ms
        t.runStage(Stage.QUEUE, slots::acquire); // waits for a model slot
        try {
          int[] tokens = t.callStage(Stage.PREPROCESS, () -> {
            t.input(prompt); // input_flags
            return model.tokenize(prompt);
          });
          int budget = 8 + tokens.length % 24;
          t.inputTokens(tokens.length).maxTokens(budget).temperature(0.0);
          t.callStage(Stage.INFER, () -> model.prefill(tokens));
          String text = t.callStage(Stage.DECODE, () -> decode(model, t, tokens.length, budget, deadlineNanos));
          t.runStage(Stage.POSTPROCESS, () -> {
            if (prompt.contains("\u0000")) {
              throw new IllegalArgumentException("NUL byte in prompt");
            }
            t.output(text).finishReason("length"); // output_flags
          });
          return t.elapsedNanos() / 1e6;
        } finally {
          slots.release();
        }
      });
    } catch (Exception e) { // the body throws InterruptedException, TimeoutException and runtime ones
      // already on the record (error_type, status); a server would answer 504 or 500 here
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
    return response;
  }

  /**
   * The decode loop: one engine launch per token, timed as a nested INFER stage (as {@code
   * TracedEngine} does), so decode_ms holds only the time between launches.
   */
  private static String decode(FakeModel model, InferenceTrace t, int inputLength, int budget, long deadlineNanos)
      throws TimeoutException {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < budget; i++) {
      int step = i;
      float logit = t.callStage(Stage.INFER, () -> model.decodeStep(inputLength, step));
      t.token();
      text.append("tok").append(Math.floorMod(Float.floatToIntBits(logit), 1000)).append(' ');
      if (t.elapsedNanos() > deadlineNanos) {
        t.status(Status.TIMEOUT);
        throw new TimeoutException("decode budget exceeded");
      }
    }
    return text.toString();
  }
}
