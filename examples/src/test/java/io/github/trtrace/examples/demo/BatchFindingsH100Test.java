package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The third field case on the records and launch log of a real GPU run (the demo on an H100, TensorRT 10.6, steps in
 * passes; GPU-RESULTS.md, "Runs 35 to 38", run 36, copied gzipped from {@code gpu-runs/}). In that run a step beside
 * another request's prefill cost a median 2.5 times one without, and the most-slowed request's TPOT was 1.99 times
 * its decode-only steps: with the old threshold of 2 the demo said no request was slowed by a neighbour.
 */
class BatchFindingsH100Test {
  @TempDir Path dir;

  private Path unpacked() throws IOException {
    for (String name : new String[] {"inference.log", "launches.log"}) {
      try (InputStream in = new GZIPInputStream(getClass().getResourceAsStream("/h100-run36/" + name + ".gz"))) {
        Files.copy(in, dir.resolve(name));
      }
    }
    return dir.resolve("inference.log");
  }

  @Test
  void theGpuRunsVictimsAreNamedWithTheNeighbourWhosePrefillSharedTheirSteps() throws IOException {
    BatchFindings f = BatchFindings.read(unpacked());
    assertThat(f.stepRatio()).isBetween(2.3, 2.7);
    assertThat(f.stepRatioRequests()).isGreaterThan(100);
    assertThat(f.victims()).hasSizeGreaterThanOrEqualTo(3);
    assertThat(f.victims()).extracting(v -> v.req().id()).contains("api-demo-0281"); // 1.99 times, the most slowed
    assertThat(f.victims()).allSatisfy(v -> {
      double base = f.baselineCpuMs(v.req());
      assertThat(v.req().cpuTpotMs()).isGreaterThanOrEqualTo(BatchFindings.VICTIM_TPOT * base);
      assertThat(v.req().stepCpuMsWithPrefill()).isGreaterThanOrEqualTo(BatchFindings.VICTIM_STEP * base);
      assertThat(v.culpritTokens()).isPositive();
    });
    assertThat(f.culprits()).isNotEmpty();
  }
}
