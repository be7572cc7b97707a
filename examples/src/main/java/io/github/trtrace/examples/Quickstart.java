package io.github.trtrace.examples;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The README's quickstart: traces a few hundred requests through real CPU work (tokenising text,
 * multiplying matrices whose size follows the input length, a token-by-token decode loop) on a
 * worker pool, and writes one JSON line per request to {@code logs/inference.log}.
 *
 * <p>Requests arrive with an {@code X-Request-ID} header (some valid, some hostile), queue for a
 * worker, and a few fail or time out — so the log has something to find.
 */
public final class Quickstart {

  /** What one run produced. */
  public record Result(Path log, List<String> requestIds, String slowest, String failed, TracerStats stats) {}

  private Quickstart() {}

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
    List<String> ids = new ArrayList<>();
    String slowest = null;
    double slowestMs = -1;
    String failed = null;
    TracerStats stats;
    try (InferenceTracer tracer =
        InferenceTracer.builder()
            .sink(JsonLinesFileSink.builder(log).build())
            .inputDigest(true)
            .build()) {
      ExecutorService workers = RequestContext.wrap(Executors.newFixedThreadPool(4));
      List<Future<Double>> futures = new ArrayList<>();
      try {
        for (int i = 0; i < requests; i++) {
          String header = Prompts.header(i);
          RequestIds.Accepted accepted = RequestIds.accept(header);
          String prompt = Prompts.prompt(i);
          // A rejected header value stays on the context, and from there on the record, as an attribute.
          RequestContext ctx = accepted.toContext().model(FakeModel.NAME).build();
          // The gateway thread: accept the request, start its trace (queue time starts now), hand it on.
          long deadline = Prompts.deadline(i).toNanos();
          Future<Double> f;
          try {
            f = ctx.call(() -> {
              InferenceTrace trace = tracer.start(FakeModel.NAME);
              InferenceTrace.StageTimer queue = trace.stage(Stage.QUEUE);
              return workers.submit(() -> serve(model, trace, queue, prompt, deadline));
            });
          } catch (Exception e) {
            throw new IllegalStateException("could not submit request " + accepted.id(), e);
          }
          ids.add(accepted.id());
          futures.add(f);
        }
        for (int i = 0; i < futures.size(); i++) {
          double ms;
          try {
            ms = futures.get(i).get(60, TimeUnit.SECONDS);
          } catch (Exception e) {
            ms = -1;
          }
          if (ms < 0 && failed == null) {
            failed = ids.get(i);
          }
          if (ms > slowestMs) {
            slowestMs = ms;
            slowest = ids.get(i);
          }
        }
      } finally {
        workers.shutdown();
        workers.awaitTermination(30, TimeUnit.SECONDS);
      }
      tracer.flush().orTimeout(30, TimeUnit.SECONDS).join();
      stats = tracer.stats();
    }
    return new Result(log, ids, slowest, failed == null ? ids.get(0) : failed, stats);
  }

  /** A worker thread serves one request. Returns its latency in ms, or -1 when it failed. */
  private static double serve(
      FakeModel model, InferenceTrace trace, InferenceTrace.StageTimer queue, String prompt, long deadlineNanos) {
    // The catch blocks sit inside try (trace): try-with-resources closes the trace before an outer
    // catch would run, and a closed trace ignores status changes.
    try (trace) {
      try {
        queue.close();
        trace.input(prompt);
        int[] tokens;
        try (var s = trace.stage(Stage.PREPROCESS)) {
          tokens = model.tokenize(prompt);
        }
        trace.inputTokens(tokens.length);
        try (var s = trace.stage(Stage.INFER)) {
          model.prefill(tokens);
        }
        try (var s = trace.stage(Stage.DECODE)) {
          int budget = 8 + tokens.length % 24;
          for (int i = 0; i < budget; i++) {
            model.decodeStep(tokens.length, i);
            trace.token();
            if (trace.elapsedNanos() > deadlineNanos) {
              throw new TimeoutException("decode budget exceeded");
            }
          }
        }
        try (var s = trace.stage(Stage.POSTPROCESS)) {
          if (prompt.contains("\u0000")) {
            throw new IllegalArgumentException("NUL byte in prompt");
          }
        }
        return trace.elapsedNanos() / 1e6;
      } catch (TimeoutException e) {
        trace.status(Status.TIMEOUT).error(e);
        return -1;
      } catch (RuntimeException e) {
        trace.error(e);
        return -1;
      }
    }
  }
}
