package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code slowed_by} lists the (at most 3) neighbours with most prefill tokens in a request's launches. A
 * member that is itself one of its launch's largest prefills must still find three others there: the launch
 * kept only its three largest, so such a member saw two.
 */
class SlowedByTopMemberTest {

  @Test
  void aLargePrefillMemberIsSlowedByTheThreeLargestOthers() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b");
      InferenceTrace c = f.tracer.start("m", "req-c");
      InferenceTrace d = f.tracer.start("m", "req-d");
      try (SharedLaunch l = f.tracer.launch("e")) {
        l.prefill(a, 1000).prefill(b, 500).prefill(c, 300).prefill(d, 100).gpuMs(4);
      }
      a.close();
      b.close();
      c.close();
      d.close();
      Map<String, InferenceRecord> r = f.byId();
      assertThat(r.get("req-a").batching().slowedBy()).extracting(SharedLaunch.Neighbour::requestId)
          .containsExactly("req-b", "req-c", "req-d");
      assertThat(r.get("req-d").batching().slowedBy()).extracting(SharedLaunch.Neighbour::requestId)
          .containsExactly("req-a", "req-b", "req-c");
    }
  }
}
