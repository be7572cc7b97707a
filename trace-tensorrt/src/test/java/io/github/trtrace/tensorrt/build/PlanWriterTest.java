package io.github.trtrace.tensorrt.build;

import io.github.trtrace.tensorrt.model.build.BuildFingerprint;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Streaming a plan to its file and through the fingerprint's hash, chunk by chunk. */
class PlanWriterTest {

  private static PlanWriter.Source over(byte[] plan) {
    return PlanWriter.Source.of(plan.length, (off, len) -> ByteBuffer.wrap(plan, (int) off, len).slice());
  }

  @Test
  void theStreamedFileAndFingerprintEqualThoseOfTheWholePlan(@TempDir Path dir) throws IOException {
    byte[] plan = new byte[3 * 1024 * 1024 + 17];   // not a multiple of the chunk
    new SplittableRandom(7).nextBytes(plan);
    Path file = dir.resolve("m.plan");
    PlanWriter.Written w = PlanWriter.write(over(plan), file, 1 << 20);
    assertThat(w.bytes()).isEqualTo(plan.length);
    assertThat(w.chunks()).isEqualTo(4);
    assertThat(Files.readAllBytes(file)).isEqualTo(plan);
    assertThat(Files.exists(dir.resolve("m.plan.partial"))).isFalse();
    List<String> flags = List.of("FP16", "TF32");
    String streamed = BuildFingerprint.of(w.digest(), "10.6.0", "9.0", "fp16", false, flags);
    assertThat(streamed).isEqualTo(BuildFingerprint.of(plan, "10.6.0", "9.0", "fp16", false, flags));
    // and from the settings a report records, as TracedBuilder signs its report
    BuildReport.Builder b = BuildReport.builder("m").tensorrtVersion("10.6.0").gpu("H200", "9.0").precision("fp16");
    flags.forEach(b::builderFlag);
    BuildReport report = b.planBytes(plan.length).build();
    assertThat(BuildFingerprint.of(PlanWriter.write(over(plan), null, 1 << 20).digest(), report)).isEqualTo(streamed);
  }

  @Test
  void aFailingSourceLeavesNoFileBehind(@TempDir Path dir) {
    Path file = dir.resolve("broken.plan");
    PlanWriter.Source source = PlanWriter.Source.of(10, (off, len) -> ByteBuffer.allocate(len - 1));
    assertThatThrownBy(() -> PlanWriter.write(source, file, 4)).isInstanceOf(IOException.class)
        .hasMessageContaining("returned 3 bytes for a slice of 4 at offset 0");
    assertThat(Files.exists(file)).isFalse();
    assertThat(Files.exists(dir.resolve("broken.plan.partial"))).isFalse();
  }

  /**
   * A generated plan larger than any Java array ({@code Math.toIntExact(plan.size())} used to throw
   * here, after holding the plan four times): streamed in 8 MiB chunks through the hash, the source
   * asked for every byte once, past 2 GiB, in order. (Hash only: the file path is the same loop, proven
   * byte for byte above; writing 2 GiB to disk would make this test slow on CI.)
   */
  @Test
  void aPlanLargerThan2GiBStreamsChunkByChunkPastTheIntLimit() throws IOException {
    long size = (1L << 31) + 4099;
    ByteBuffer chunk = ByteBuffer.allocateDirect(PlanWriter.DEFAULT_CHUNK);
    long[] next = {0};
    int[] last = {-1};
    PlanWriter.Source source = PlanWriter.Source.of(size, (off, len) -> {
      assertThat(off).isEqualTo(next[0]);
      next[0] = off + len;
      last[0] = len;
      return chunk.duplicate().clear().limit(len);
    });
    PlanWriter.Written w = PlanWriter.write(source, null);
    assertThat(w.bytes()).isEqualTo(size);
    assertThat(next[0]).isEqualTo(size);
    assertThat(last[0]).isEqualTo(4099);
    assertThat(w.chunks()).isEqualTo(257);
    assertThat(BuildFingerprint.of(w.digest(), null, null, null, false, List.of())).hasSize(64);
  }
}
