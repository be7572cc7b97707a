package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The GPU line under a slow request: the record's roofline and NVML figures, nothing for a CPU record. */
class GpuLineTest {
  @Test
  void aGpuRecordsRooflineAndNvmlFiguresReadAsOneLineAndACpuRecordHasNone(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("inference.log");
    Files.writeString(log, String.join("\n",
        "{\"timestamp\":\"2026-12-01T11:25:00Z\",\"request_id\":\"api-demo-0215\",\"status\":\"success\","
            + "\"latency_ms\":289.0,\"input_tokens\":2075,\"gpu_ms\":257.855,\"gpu_mem_util_mean\":4.714,"
            + "\"gpu_mem_util_max\":15.0,\"attributes\":{\"gpu.bound\":\"memory\",\"gpu.arith_intensity\":\"38.28\","
            + "\"gpu.mem_bw_gbs\":\"201.4\",\"gpu.mem_bw_util\":\"0.042\",\"gpu.flops_util\":\"0.008\","
            + "\"gpu.decode.bound\":\"memory\",\"gpu.decode.mem_bw_util\":\"0.050\",\"gpu.prefill.bound\":\"compute\","
            + "\"gpu.prefill.flops_util\":\"0.050\",\"http_status\":\"200\"}}",
        "{\"timestamp\":\"2026-12-01T11:25:01Z\",\"request_id\":\"api-demo-0216\",\"status\":\"success\","
            + "\"latency_ms\":20.0,\"input_tokens\":20}",
        "{\"torn"));
    Map<String, Map<String, String>> gpu = GpuLine.read(log, Set.of("api-demo-0215", "api-demo-0216"));
    assertThat(gpu.get("api-demo-0215")).doesNotContainKey("http_status").containsEntry("gpu.bound", "memory");
    assertThat(GpuLine.summary(gpu.get("api-demo-0215"))).isEqualTo("GPU 257.855 ms: memory-bound by the roofline"
        + " (38.28 FLOP/B), 201.4 GB/s = 4% of peak bandwidth, 0.8% of peak FLOP/s; decode steps memory-bound at 5%"
        + " of peak bandwidth; prefill compute-bound at 5% of peak FLOP/s; NVML gpu_mem_util mean 4.714 % max 15.0 %");
    assertThat(GpuLine.summary(gpu.get("api-demo-0216"))).isNull();
  }
}
