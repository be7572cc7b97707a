package io.github.trtrace.tensorrt.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
    String streamed = BuildReport.fingerprint(w.digest(), "10.6.0", "9.0", "fp16", false, flags);
    assertThat(streamed).isEqualTo(BuildReport.fingerprint(plan, "10.6.0", "9.0", "fp16", false, flags));
    // and through the report builder, which must not consume the digest it was given
    BuildReport.Builder b = BuildReport.builder("m").tensorrtVersion("10.6.0").gpu("H200", "9.0").precision("fp16");
    flags.forEach(b::builderFlag);
    BuildReport.Builder withDigest = b.planDigest(PlanWriter.write(over(plan), null, 1 << 20).digest(), plan.length);
    assertThat(withDigest.build().engineFingerprint()).isEqualTo(streamed).isEqualTo(withDigest.build().engineFingerprint());
    assertThat(withDigest.build().planBytes()).isEqualTo(plan.length);
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
   * here, after holding the plan four times): streamed in 8 MiB chunks, each stamped with its offset,
   * so the bytes past 2 GiB are checked where they landed. Needs 2 GiB of free disk.
   */
  @Test
  void aPlanLargerThan2GiBStreamsToItsFile(@TempDir Path dir) throws IOException {
    long size = (1L << 31) + 4099;
    assumeTrue(dir.toFile().getUsableSpace() > size + (1L << 30), "needs 3 GiB of free disk");
    ByteBuffer chunk = ByteBuffer.allocateDirect(PlanWriter.DEFAULT_CHUNK).order(ByteOrder.LITTLE_ENDIAN);
    PlanWriter.Source source = PlanWriter.Source.of(size, (off, len) -> {
      ByteBuffer b = chunk.duplicate().order(ByteOrder.LITTLE_ENDIAN);
      b.clear().limit(len);
      if (len >= Long.BYTES) {
        b.putLong(0, off);
      }
      return b;
    });
    Path file = dir.resolve("big.plan");
    PlanWriter.Written w = PlanWriter.write(source, file);
    assertThat(w.bytes()).isEqualTo(size);
    assertThat(w.chunks()).isEqualTo(257);
    assertThat(Files.size(file)).isEqualTo(size);
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      assertThat(Long.reverseBytes(readLong(f, 1L << 31))).isEqualTo(1L << 31);
      assertThat(Long.reverseBytes(readLong(f, (1L << 31) - PlanWriter.DEFAULT_CHUNK)))
          .isEqualTo((1L << 31) - PlanWriter.DEFAULT_CHUNK);
    }
    assertThat(BuildReport.fingerprint(w.digest(), null, null, null, false, List.of())).hasSize(64);
    Files.delete(file);
  }

  private static long readLong(RandomAccessFile f, long at) throws IOException {
    f.seek(at);
    return f.readLong();
  }
}
