package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndedMemberJoinTest {

  @Test
  void aRequestThatEndedBeforeItsFirstLaunchCannotJoinOne() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b");
      a.close(); // never in a launch: its trace has no batching state yet
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.decode(a).decode(b).gpuMs(4);
      }
      b.close();
      Map<String, InferenceRecord> r = f.byId();
      assertThat(f.tracer.stats().misuse()).as("decode() of an ended request").isEqualTo(1);
      assertThat(f.launches).hasSize(1);
      assertThat(f.launches.get(0).members()).containsExactly("req-b");
      assertThat(r.get("req-b").gpuMs()).as("the whole launch's GPU time").isEqualTo(4.0);
    }
  }

  @Test
  void aRequestThatEndedAfterALaunchCannotJoinAnother() { // the control: the state exists, end() took it
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b");
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.decode(a).decode(b).gpuMs(2);
      }
      a.close();
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.decode(a).decode(b).gpuMs(4);
      }
      b.close();
      Map<String, InferenceRecord> r = f.byId();
      assertThat(f.tracer.stats().misuse()).isEqualTo(1);
      assertThat(f.launches.get(1).members()).containsExactly("req-b");
      assertThat(r.get("req-b").gpuMs()).isEqualTo(5.0);
    }
  }
}
