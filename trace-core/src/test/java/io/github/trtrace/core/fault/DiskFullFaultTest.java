package io.github.trtrace.core.fault;

import static io.github.trtrace.core.fault.Accounting.assertAccountedFor;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.TracerStats.SinkStats;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 11 fault 1: the disk fills up under a running tracer (a real 1 MiB tmpfs). Requests keep
 * succeeding, the counters are exact (lines on disk = written; accepted = written + lost + in
 * flight), only whole lines are on disk, and writing resumes without a restart once space is freed.
 */
class DiskFullFaultTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The sink's own flush interval: buffered (the default) and written through on every batch. */
  @ParameterizedTest(name = "sink flushInterval {0} ms")
  @ValueSource(longs = {1000, 0})
  void countersStayExactWhileTheDiskIsFullAndWritingResumesWhenSpaceIsFreed(long flushMillis) throws Exception {
    try (Tmpfs fs = Tmpfs.mount("1m")) {
      Path log = fs.path().resolve("inference.log");
      JsonLinesFileSink file =
          JsonLinesFileSink.builder(log).maxFileBytes(0).flushInterval(Duration.ofMillis(flushMillis)).build();
      InferenceTracer tracer = InferenceTracer.builder().sink(file).shutdownHook(false).build();
      Path filler = fs.fillLeaving(64 * 1024);

      long slowestNanos = traceRequests(tracer, "full-", 5_000);
      tracer.flush().join();
      TracerStats full = tracer.stats();
      SinkStats sink = full.sinks().get(file.name());
      System.out.printf("disk full (sink flush %d ms): %s; slowest request %.3f ms%n", flushMillis, full, slowestNanos / 1e6);
      assertThat(sink.lostFailed()).as("the disk filled up").isPositive();
      assertThat(sink.inFlight()).isZero();
      assertThat(wholeLines(log)).as("lines on disk = written").isEqualTo(sink.written());
      assertThat(full.ended()).isEqualTo(5_000);
      assertThat(full.dispatcher().accepted() + full.dispatcher().dropped()).isEqualTo(5_000);
      assertAccountedFor(full.dispatcher());

      Files.delete(filler);
      traceRequests(tracer, "after-", 500);
      tracer.flush().join();
      SinkStats resumed = tracer.stats().sinks().get(file.name());
      assertThat(resumed.written() - sink.written()).as("written after space was freed").isEqualTo(500);
      assertThat(resumed.lostFailed()).isEqualTo(sink.lostFailed());
      assertThat(wholeLines(log)).isEqualTo(resumed.written());

      tracer.close();
      TracerStats end = tracer.stats();
      assertThat(end.sinks().get(file.name()).inFlight()).isZero();
      assertAccountedFor(end.dispatcher());
      System.out.printf("after space freed and close (sink flush %d ms): %s%n", flushMillis, end);
    }
  }

  private static long traceRequests(InferenceTracer tracer, String prefix, int n) {
    long slowest = 0;
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      try (InferenceTrace t = tracer.start("llama-3-8b", "req-" + prefix + i)) {
        t.inputTokens(128).outputTokens(64).attribute("tenant", "t-" + (i % 7)).status(Status.SUCCESS);
      }
      if (i >= 100) { // after class loading and the first compilations
        slowest = Math.max(slowest, System.nanoTime() - start);
      }
    }
    return slowest;
  }

  /** Number of lines; fails on a torn or unparsable one. */
  static long wholeLines(Path log) throws Exception {
    String text = Files.readString(log, StandardCharsets.UTF_8);
    if (text.isEmpty()) {
      return 0;
    }
    assertThat(text).endsWith("\n");
    List<String> lines = text.lines().toList();
    for (String line : lines) {
      assertThat(JSON.readTree(line).has("request_id")).isTrue();
    }
    return lines.size();
  }
}
