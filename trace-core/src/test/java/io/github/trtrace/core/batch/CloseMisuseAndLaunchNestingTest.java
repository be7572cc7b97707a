package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** Behaviour the review checked to be unchanged (these pass before and after the fixes' intent). */
class CloseMisuseAndLaunchNestingTest {

  @Test
  void aSecondCloseIsOneMisuseBatchedOrNot() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      a.close();
      a.close();
      assertThat(f.tracer.stats().misuse()).isEqualTo(1);
      InferenceTrace b = f.tracer.start("m", "req-b");
      try (SharedLaunch l = f.tracer.launch(null)) {
        l.decode(b);
      }
      b.close();
      b.close();
      assertThat(f.tracer.stats().misuse()).isEqualTo(2);
      assertThat(f.byId()).hasSize(2);
    }
  }

  @Test
  void aGarbageFreeStaleCloseIsOneMisuseAndEndsNothing() {
    try (BatchFixture f = new BatchFixture(null, true)) {
      InferenceTrace[] h1 = new InferenceTrace[1];
      f.tracer.run("m", "req-1", t -> { h1[0] = t; });
      f.tracer.run("m", "req-2", t -> {
        h1[0].close(); // stale: req-1's handle, the trace now serves req-2
        assertThat(t.isEnded()).isFalse();
      });
      assertThat(f.tracer.stats().misuse()).isEqualTo(1);
      assertThat(f.byId()).containsOnlyKeys("req-1", "req-2");
    }
  }

  @Test
  void nestedLaunchesClosedOutOfOrderOnTheirThreadAndAcrossThreads() throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (BatchFixture f = new BatchFixture()) {
      SharedLaunch a = f.tracer.launch(null);
      SharedLaunch b = f.tracer.launch(null);
      SharedLaunch c = f.tracer.launch(null);
      a.close(); // out of order, on its thread
      assertThat(SharedLaunch.current()).isSameAs(c);
      other.submit(c::close).get(); // the innermost, elsewhere
      assertThat(SharedLaunch.current()).isSameAs(b);
      SharedLaunch d = f.tracer.launch(null); // likely the pooled object of c or a again
      assertThat(SharedLaunch.current()).isSameAs(d);
      d.close();
      assertThat(SharedLaunch.current()).isSameAs(b);
      b.close();
      assertThat(SharedLaunch.current()).isNull();
    } finally {
      other.shutdownNow();
    }
  }
}
