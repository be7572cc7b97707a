package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What trtrace gate prints agrees with its verdict: no failing figure reads as its limit, no check is skipped unsaid. */
class GateOutputCliTest {
  @TempDir Path dir;

  private Path report(String name, String memory) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, "{\"status\":\"success\",\"model_name\":\"llama-8b\",\"tensorrt_version\":\"10.15.1\","
        + "\"network_layer_count\":6,\"engine_layer_count\":3,\"plan_bytes\":4,"
        + "\"layers\":[{\"name\":\"attn\",\"precision\":\"fp16\"}]" + memory + "}");
    return p;
  }

  @Test
  void aGrowthJustOverTheDefaultLimitFailsAndSaysByHowMuch() throws IOException {
    Path b = report("b.json", ",\"device_memory_bytes\":1000000");
    Path c = report("c.json", ",\"device_memory_bytes\":1050400");
    Cli r = Cli.run("gate", b.toString(), c.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).contains(
        "DEVICE_MEMORY: device memory grew by 5.04 % (allowed 5.00 %) (baseline 1000000, current 1050400)");
  }

  @Test
  void aReportWithoutDeviceMemoryPassesAndTheGateSaysTheCheckWasSkipped() throws IOException {
    Path b = report("b.json", ",\"device_memory_bytes\":1000000");
    Path c = report("c.json", "");
    Cli r = Cli.run("gate", b.toString(), c.toString());
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo("Build gate passed for llama-8b\n"
        + "  note: skipped the device-memory growth check: the new report has no device memory figure"
        + " (device_memory_bytes)\n");
  }

  @Test
  void aZeroByteBaselineIsSaidToo() throws IOException {
    Path b = report("b.json", ",\"device_memory_bytes\":0");
    Path c = report("c.json", ",\"device_memory_bytes\":900000000");
    Cli r = Cli.run("gate", b.toString(), c.toString());
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("skipped the device-memory growth check: the baseline's device memory is 0 bytes");
    Cli diff = Cli.run("build-diff", b.toString(), c.toString());
    assertThat(diff.out()).contains("Notes (1)", "skipped the device-memory growth check");
  }

  @Test
  void aFigureWrittenAsAStringIsBadInputNamingTheFileAndField() throws IOException {
    Path b = report("b.json", ",\"device_memory_bytes\":1000000");
    Path c = report("c.json", ",\"device_memory_bytes\":\"2000000\"");
    Cli r = Cli.run("gate", b.toString(), c.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("trtrace gate: " + c + " is not a build report: device_memory_bytes: expected a number"
        + " but got a string\n");
  }
}
