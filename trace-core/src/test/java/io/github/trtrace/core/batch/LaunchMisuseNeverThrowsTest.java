package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recording never throws into the scheduler: a launch's layer table or GPU activities holding a null (a
 * misuse, as the trace's own {@code layers} treats it) is counted as misuse, the nulls left out, and the
 * launch still closes, attributes its members and is logged.
 */
class LaunchMisuseNeverThrowsTest {
  @TempDir Path dir;

  @Test
  void aLayerTableWithANullIsCountedNotThrown() throws Exception {
    Path log = dir.resolve("launches.log");
    try (BatchFixture f = new BatchFixture(log, false)) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      long before = f.tracer.stats().misuse();
      assertThatCode(() -> {
        try (SharedLaunch l = f.tracer.launch("e")) {
          l.decode(a).gpuMs(1);
          l.layers(Arrays.asList(new InferenceRecord.LayerTime("attn.0", 1.25, 2), null));
        }
      }).doesNotThrowAnyException();
      assertThat(f.tracer.stats().misuse() - before).isEqualTo(1);
      a.close();
      f.tracer.flush().join();
      List<JsonNode> lines = LaunchLogTest.read(log);
      assertThat(lines).hasSize(1);
      assertThat(lines.get(0).get("layers")).hasSize(1);
      assertThat(lines.get(0).get("layers").get(0).get("name").asText()).isEqualTo("attn.0");
      assertThat(f.byId().get("req-a").batching().launchCount()).isEqualTo(1);
    }
  }

  @Test
  void gpuActivitiesWithANullOrNoneAreCountedNotThrown() throws Exception {
    Path log = dir.resolve("activities.log");
    try (BatchFixture f = new BatchFixture(log, false)) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      SharedLaunch.ActivityLog activities;
      long id;
      try (SharedLaunch l = f.tracer.launch("e")) {
        l.decode(a).gpuMs(1);
        id = l.id();
        activities = l.activityLog();
      }
      long before = f.tracer.stats().misuse();
      assertThatCode(() -> activities.write(id, Arrays.asList((SharedLaunch.GpuActivity) null), 0))
          .doesNotThrowAnyException();
      assertThatCode(() -> activities.write(id, null, 0)).doesNotThrowAnyException();
      assertThat(f.tracer.stats().misuse() - before).isEqualTo(2);
      a.close();
    }
  }
}
