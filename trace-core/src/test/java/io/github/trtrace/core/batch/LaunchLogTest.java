package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.sampling.Sampler;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.core.sink.RecordSink;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LaunchLogTest {
  static final ObjectMapper MAPPER = new ObjectMapper();
  static final JsonSchema SCHEMA = schema();

  @TempDir Path dir;

  static JsonSchema schema() {
    try (InputStream in = LaunchLogTest.class.getResourceAsStream("/io/github/trtrace/core/launch-log.schema.json")) {
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static List<JsonNode> read(Path file) throws Exception {
    List<JsonNode> lines = new ArrayList<>();
    for (String s : Files.readAllLines(file)) {
      JsonNode n = MAPPER.readTree(s);
      assertThat(SCHEMA.validate(n)).as(s).isEmpty();
      lines.add(n);
    }
    return lines;
  }

  @Test
  void everyLaunchIsOneSchemaValidLineWithItsMembersAndShares() throws Exception {
    Path log = dir.resolve("launches.log");
    try (BatchFixture f = new BatchFixture(log, false)) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b");
      try (SharedLaunch l = f.tracer.launch("sha256:e1")) {
        l.prefill(a, 30).decode(b).gpuMs(3.1);
        f.advanceMs(3.5);
      }
      try (SharedLaunch l = f.tracer.launch("sha256:e1")) {
        l.decode(a).decode(b).error("tensorrt.enqueue_failed");
        l.event("tensorrt", "ERROR", "bad binding");
        l.layers(List.of(new InferenceRecord.LayerTime("attn.0", 1.25, 2)));
      }
      a.close();
      b.close();
      f.tracer.flush().join();
      List<JsonNode> lines = read(log);
      assertThat(lines).hasSize(2);
      JsonNode first = lines.get(0);
      assertThat(first.get("phase").asText()).isEqualTo("mixed");
      assertThat(first.get("engine_fingerprint").asText()).isEqualTo("sha256:e1");
      assertThat(first.get("batch_size").asInt()).isEqualTo(2);
      assertThat(first.get("prefill_tokens").asInt()).isEqualTo(30);
      assertThat(first.get("decode_rows").asInt()).isEqualTo(1);
      assertThat(first.get("gpu_ms").asDouble()).isEqualTo(3.1);
      assertThat(first.get("host_ms").asDouble()).isEqualTo(3.5);
      assertThat(first.get("share_method").asText()).isEqualTo("tokens");
      double sum = 0;
      for (JsonNode m : first.get("members")) {
        sum += m.get("share_ms").asDouble();
      }
      assertThat(sum).isCloseTo(3.1, within(1e-9));
      assertThat(first.get("members").get(0).get("request_id").asText()).isEqualTo("req-a");
      JsonNode second = lines.get(1);
      assertThat(second.get("status").asText()).isEqualTo("error");
      assertThat(second.get("error_type").asText()).isEqualTo("tensorrt.enqueue_failed");
      assertThat(second.has("gpu_ms")).isFalse();
      assertThat(second.get("events").get(0).get("message").asText()).isEqualTo("bad binding");
      assertThat(second.get("layers").get(0).get("name").asText()).isEqualTo("attn.0");
      assertThat(second.get("layers").get(0).get("invocations").asInt()).isEqualTo(2);
      assertThat(first.has("layers")).isFalse();
      // the join: the record's launch ids are the lines' ids
      InferenceRecord ra = f.byId().get("req-a");
      assertThat(ra.batching().firstLaunchId()).isEqualTo(first.get("launch_id").asLong());
      assertThat(ra.batching().lastLaunchId()).isEqualTo(second.get("launch_id").asLong());
      assertThat(f.tracer.launchStats().launches()).isEqualTo(2);
      assertThat(f.tracer.launchStats().logged()).isEqualTo(2);
      assertThat(f.tracer.launchStats().dropped()).isZero();
    }
  }

  @Test
  void aLaunchInPassesSaysHowManyOnItsLineAndALaunchOfOneSaysNothing() throws Exception {
    Path log = dir.resolve("passes.log");
    try (BatchFixture f = new BatchFixture(log, false)) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b");
      try (SharedLaunch l = f.tracer.launch("sha256:e1")) {
        l.prefill(a, 30).decode(b).passes(2).gpuMs(3.0);
      }
      try (SharedLaunch l = f.tracer.launch("sha256:e1")) {
        l.decode(a).decode(b).passes(1).gpuMs(1.0);
      }
      try (SharedLaunch l = f.tracer.launch("sha256:e1")) {
        l.decode(a).passes(0).gpuMs(1.0); // a misuse: ignored, counted
      }
      a.close();
      b.close();
      f.tracer.flush().join();
      List<JsonNode> lines = read(log); // schema-valid
      assertThat(lines).hasSize(3);
      assertThat(lines.get(0).get("passes").asInt()).isEqualTo(2);
      assertThat(lines.get(1).has("passes")).as("one enqueue: no field").isFalse();
      assertThat(lines.get(2).has("passes")).isFalse();
      assertThat(f.tracer.stats().misuse()).isEqualTo(1);
    }
  }

  @Test
  void kernelsRecordedAfterALaunchClosedAreOneSchemaValidKernelsLineJoinedByLaunchId() throws Exception {
    Path log = dir.resolve("kernels.log");
    try (BatchFixture f = new BatchFixture(log, false)) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b");
      long id;
      SharedLaunch.ActivityLog activities;
      try (SharedLaunch l = f.tracer.launch("sha256:e1")) {
        l.decode(a).decode(b).gpuMs(0.05);
        id = l.id();
        activities = l.activityLog();
        assertThat(l.hasMember("req-b")).isTrue();
        assertThat(l.hasMember("req-c")).isFalse();
      }
      a.close();
      b.close();
      long t0 = 5_000_000_000L;
      boolean queued = activities.write(id, List.of(
          new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.MEMCPY, "HtoD", t0, t0 + 2_000, 0, 0, 0, 0, 0, 0, 4096),
          new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.KERNEL, "gemm<float>", t0 + 3_000, t0 + 33_000,
              64, 2, 1, 128, 1, 1, 0),
          new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.KERNEL, "gelu", t0 + 34_000, t0 + 44_000,
              16, 1, 1, 256, 1, 1, 0)), 3);
      assertThat(queued).isTrue();
      f.tracer.flush().join();
      List<JsonNode> lines = read(log);
      assertThat(lines).hasSize(2);
      JsonNode k = lines.get(1);
      assertThat(k.get("launch_id").asLong()).isEqualTo(lines.get(0).get("launch_id").asLong()).isEqualTo(id);
      assertThat(k.get("kernels")).hasSize(3);
      assertThat(k.get("kernels").get(0).get("bytes").asLong()).isEqualTo(4096);
      assertThat(k.get("kernels").get(1).get("name").asText()).isEqualTo("gemm<float>");
      assertThat(k.get("kernels").get(1).get("grid").get(1).asInt()).isEqualTo(2);
      assertThat(k.get("kernels").get(1).get("ms").asDouble()).isCloseTo(0.030, within(1e-12));
      assertThat(k.get("kernel_count").asInt()).isEqualTo(2);
      assertThat(k.get("kernel_ms").asDouble()).isCloseTo(0.040, within(1e-12));
      assertThat(k.get("span_ms").asDouble()).isCloseTo(0.044, within(1e-12));
      assertThat(k.get("activities_truncated").asInt()).isEqualTo(3);
      assertThat(k.get("complete").asBoolean()).as("written by the three-argument write: all came").isTrue();
      assertThat(k.has("unmatched_calls")).isFalse();
      assertThat(f.tracer.launchStats().dropped()).isZero();
    }
  }

  @Test
  void aKernelsLineTheRecorderStoppedWaitingForSaysItIsIncompleteAndHowManyCallsOweARecord() throws Exception {
    Path log = dir.resolve("incomplete-kernels.log");
    try (BatchFixture f = new BatchFixture(log, false)) {
      Closed c = Closed.launch(f.tracer);
      long id = c.id();
      SharedLaunch.ActivityLog activities = c.log();
      assertThat(activities.write(id, List.of(new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.KERNEL, "k",
          10, 20, 1, 1, 1, 32, 1, 1, 0)), 0, false, 3)).isTrue();
      assertThat(activities.write(id + 1, List.of(), 0, false, 0)).isTrue();
      f.tracer.flush().join();
      List<JsonNode> lines = read(log); // schema-valid
      assertThat(lines).hasSize(3);
      assertThat(lines.get(1).get("complete").asBoolean()).isFalse();
      assertThat(lines.get(1).get("unmatched_calls").asInt()).isEqualTo(3);
      assertThat(lines.get(2).get("kernels")).isEmpty();
      assertThat(lines.get(2).get("complete").asBoolean()).isFalse();
      assertThat(lines.get(2).get("unmatched_calls").asInt()).as("the launch's calls did not all come").isZero();
    }
  }

  @Test
  void aKernelsLineCarriesTheHostsPartOfTheWindowWhenTheRecorderKnowsIt() throws Exception {
    Path log = dir.resolve("host-kernels.log");
    try (BatchFixture f = new BatchFixture(log, false)) {
      Closed c = Closed.launch(f.tracer);
      long id = c.id();
      SharedLaunch.ActivityLog activities = c.log();
      List<SharedLaunch.GpuActivity> one = List.of(new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.KERNEL, "k",
          10, 20, 1, 1, 1, 32, 1, 1, 0));
      assertThat(activities.write(id, one, 0, true, 0, new SharedLaunch.HostTiming(41_000, 3_000, 12_000, 2_000, 35_000)))
          .isTrue(); // ms to 3 decimals, as every duration
      assertThat(activities.write(id + 1, one, 0, true, 0, null)).isTrue();
      f.tracer.flush().join();
      List<JsonNode> lines = read(log); // schema-valid
      assertThat(lines.get(1).get("lead_in_ms").asDouble()).isEqualTo(0.041);
      assertThat(lines.get(1).get("start_call_ms").asDouble()).isEqualTo(0.003);
      assertThat(lines.get(1).get("lead_out_ms").asDouble()).isEqualTo(0.012);
      assertThat(lines.get(1).get("end_call_ms").asDouble()).isEqualTo(0.002);
      assertThat(lines.get(1).get("host_wait_ms").asDouble()).isEqualTo(0.035);
      assertThat(lines.get(2).has("lead_in_ms")).as("not known: not written").isFalse();
      assertThat(lines.get(2).has("start_call_ms")).isFalse();
      assertThat(lines.get(2).has("lead_out_ms")).isFalse();
      assertThat(lines.get(2).has("host_wait_ms")).isFalse();
    }
  }

  @Test
  void aNegativeHostTimingIsRefusedWithWhatWasWrong() {
    assertThatThrownBy(() -> new SharedLaunch.HostTiming(41_000, 3_000, -1, 0, 35_000))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lead-out -1 ns");
  }

  @Test
  void aKernelsLineListsAtMostItsBoundAndCountsTheRestWithTheRecordersOwn() throws Exception {
    Path log = dir.resolve("many-kernels.log");
    try (BatchFixture f = new BatchFixture(log, false)) {
      Closed c = Closed.launch(f.tracer);
      long id = c.id();
      SharedLaunch.ActivityLog activities = c.log();
      List<SharedLaunch.GpuActivity> many = new ArrayList<>();
      int n = io.github.trtrace.core.internal.batch.LaunchLog.MAX_ACTIVITIES + 10;
      for (int i = 0; i < n; i++) {
        many.add(new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.KERNEL, "k" + i, i * 10L, i * 10L + 5,
            1, 1, 1, 32, 1, 1, 0));
      }
      assertThat(activities.write(id, many, 7)).isTrue();
      f.tracer.flush().join();
      JsonNode k = read(log).get(1);
      assertThat(k.get("kernels")).hasSize(io.github.trtrace.core.internal.batch.LaunchLog.MAX_ACTIVITIES);
      assertThat(k.get("activities_truncated").asInt()).isEqualTo(17);
      assertThat(k.get("kernel_count").asInt()).isEqualTo(io.github.trtrace.core.internal.batch.LaunchLog.MAX_ACTIVITIES);
    }
  }

  @Test
  void aTracerWithoutLaunchLogDropsKernelLinesAndSaysSo() {
    try (InferenceTracer tracer = InferenceTracer.builder().sink(RecordSink.named("none", batch -> {}))
        .shutdownHook(false).build()) {
      Closed c = Closed.launch(tracer);
      SharedLaunch.ActivityLog log = c.log();
      long id = c.id();
      assertThat(log.write(id, List.of(), 0)).isFalse();
    }
  }

  @Test
  void aLargeBatchsLineListsTheBoundAndCountsTheRest() throws Exception {
    Path log = dir.resolve("big.log");
    try (InferenceTracer tracer = InferenceTracer.builder().sink(RecordSink.named("none", batch -> {}))
        .launchLog(log).launchLogMembers(4).shutdownHook(false).build()) {
      List<InferenceTrace> ts = new ArrayList<>();
      try (SharedLaunch l = tracer.launch(null)) {
        for (int i = 0; i < 10; i++) {
          InferenceTrace t = tracer.start("m", "req-" + i);
          ts.add(t);
          l.decode(t);
        }
        l.gpuMs(1);
      }
      ts.forEach(InferenceTrace::close);
      tracer.flush().join();
      JsonNode line = read(log).get(0);
      assertThat(line.get("members")).hasSize(4);
      assertThat(line.get("members_truncated").asInt()).isEqualTo(6);
      assertThat(line.get("batch_size").asInt()).isEqualTo(10);
    }
  }

  /**
   * The sampling decision: a request kept only because it was slow (decided at its end, after its
   * launches closed) finds every one of its launches in the log, because launches are not sampled.
   */
  @Test
  void aRequestKeptAsSlowAtItsEndFindsAllItsLaunchesLogged() throws Exception {
    Path log = dir.resolve("sampled.log");
    List<InferenceRecord> kept = new CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
    try (InferenceTracer tracer = new io.github.trtrace.core.internal.trace.TracerFactory()
        .sink(RecordSink.named("kept", kept::addAll))
        .sampler(Sampler.builder().rate(0.0).slowThreshold(Duration.ofMillis(100)).build())
        .clocks(java.time.Clock.systemUTC(), nanos::get)
        .launchLog(JsonLinesFileSink.builder(log).maxFileBytes(4096).maxRotatedFiles(50).gzipRotated(false).build())
        .shutdownHook(false).build()) {
      InferenceTrace fast = tracer.start("m", "req-fast");
      InferenceTrace slow = tracer.start("m", "req-slow");
      for (int step = 0; step < 40; step++) {
        try (SharedLaunch l = tracer.launch(null)) {
          l.decode(slow);
          if (step < 2) {
            l.decode(fast);
          }
          l.gpuMs(1);
          nanos.addAndGet(5_000_000);
        }
        if (step == 1) {
          fast.close();
        }
      }
      slow.close();
      tracer.flush().join();
      assertThat(kept).extracting(InferenceRecord::requestId).containsExactly("req-slow");
      SharedLaunch.Summary s = kept.get(0).batching();
      List<Long> logged = new ArrayList<>();
      try (var files = Files.list(dir)) {
        for (Path p : files.filter(p -> p.getFileName().toString().startsWith("sampled")).toList()) {
          for (JsonNode n : read(p)) {
            for (JsonNode m : n.get("members")) {
              if (m.get("request_id").asText().equals("req-slow")) {
                logged.add(n.get("launch_id").asLong());
              }
            }
          }
        }
      }
      assertThat(logged).hasSize(s.launchCount()).contains(s.firstLaunchId(), s.lastLaunchId());
    }
  }

  /** A launch opened and closed with no member: its id and its tracer's activity log, for a kernels line. */
  private record Closed(long id, SharedLaunch.ActivityLog log) {
    static Closed launch(InferenceTracer tracer) {
      try (SharedLaunch l = tracer.launch(null)) {
        return new Closed(l.id(), l.activityLog());
      }
    }
  }
}
