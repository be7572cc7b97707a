package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.tensorrt.model.build.BuildGate;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code trtrace gate} and the library's {@link BuildGate} give the same verdict on the same reports and limits:
 * exit code 0 exactly when {@code check(...).passed()}, and the same message. The cases cover every kind of
 * regression, the allow flags, the limits, Myelin's per-build layer names and a failed build on either side.
 *
 * <p>Failed against failed fails the gate (both ways): the gate answers "may this candidate ship?", and a build
 * that produced no plan cannot, whatever the baseline did — a broken baseline must not turn CI green for a
 * candidate that is just as broken. {@code build-diff} still reports no change for that pair (exit 0).
 */
class GateVerdictParityTest {
  @TempDir static Path dir;

  private static BuildReport.Builder base() {
    return BuildReport.builder("llama-8b").tensorrtVersion("10.15.1").gpu("NVIDIA H200", "9.0").precision("fp16")
        .networkLayerCount(6).fusedGroup(new BuildReport.FusedGroup("attn", List.of("q", "k", "v")))
        .fusedGroup(new BuildReport.FusedGroup("mlp", List.of("up", "act")))
        .layer(new BuildReport.Layer("attn", null, "fp16", List.of("fp16"), null))
        .layer(new BuildReport.Layer("block0_mlp_up_myl3_5", null, "fp16", List.of("fp16"), null))
        .deviceMemoryBytes(1_000_000).planBytes(4000).warning("Detected layernorm in FP16")
        .createdAt(Instant.parse("2026-11-30T09:00:00Z"));
  }

  private static BuildReport variant(UnaryOperator<BuildReport.Builder> change) {
    return change.apply(base()).build();
  }

  /** The same network built again: Myelin numbered its MLP layer differently, and it now runs in fp32. */
  private static BuildReport myelinFallback() {
    BuildReport ok = base().build();
    BuildReport.Builder b = BuildReport.builder("llama-8b").tensorrtVersion("10.15.1").gpu("NVIDIA H200", "9.0")
        .precision("fp16").networkLayerCount(6).deviceMemoryBytes(1_000_000).planBytes(4000)
        .warning("Detected layernorm in FP16").createdAt(ok.createdAt())
        .layer(ok.layers().get(0)).layer(new BuildReport.Layer("block0_mlp_up_myl7_9", null, "fp32", List.of("fp32"), null));
    ok.fusedGroups().forEach(b::fusedGroup);
    return b.build();
  }

  private static BuildReport capturedFailure() throws IOException {
    try (InputStream in = GateVerdictParityTest.class.getResourceAsStream("/reports/h200-2026-11-30-failed-sm90.build.json")) {
      assertThat(in).isNotNull();
      return BuildReport.read(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  static Stream<Arguments> cases() throws IOException {
    BuildReport ok = base().build();
    BuildReport failed = capturedFailure();
    BuildReport failedOther = failed.toBuilder().error(new BuildReport.BuildError(2, "Internal Error", "another")).build();
    BuildReport tinyOk = BuildReport.builder("gpucheck-tiny").build();
    return Stream.of(
        Arguments.of("identical", ok, ok, List.of()),
        Arguments.of("fusion drop", ok, variant(b -> b.networkLayerCount(8)), List.of()),
        Arguments.of("fusion drop within the limit", ok, variant(b -> b.networkLayerCount(7)),
            List.of("--max-fusion-rate-drop", "0.2")),
        Arguments.of("Myelin renumbered the layer and it fell back to fp32", ok, myelinFallback(), List.of()),
        Arguments.of("Myelin renumbered the layer, fallbacks allowed", ok, myelinFallback(),
            List.of("--allow-precision-fallbacks")),
        Arguments.of("memory growth over 5 %", ok, variant(b -> b.deviceMemoryBytes(1_200_000)), List.of()),
        Arguments.of("memory growth allowed at 25 %", ok, variant(b -> b.deviceMemoryBytes(1_200_000)),
            List.of("--max-memory-growth", "0.25")),
        Arguments.of("plan growth", ok, variant(b -> b.planBytes(5000)), List.of()),
        Arguments.of("two more engine layers, one allowed", ok, variant(b -> b.engineLayerCount(4)),
            List.of("--max-engine-layer-growth", "1")),
        Arguments.of("new warning", ok, variant(b -> b.warning("a brand new warning")), List.of()),
        Arguments.of("new warning allowed", ok, variant(b -> b.warning("a brand new warning")), List.of("--allow-new-warnings")),
        Arguments.of("new error allowed", ok, variant(b -> b.error(new BuildReport.BuildError(-1, null, "oops"))),
            List.of("--allow-new-errors")),
        Arguments.of("success to failed", tinyOk, failed, List.of()),
        Arguments.of("failed to success", failed, tinyOk, List.of()),
        Arguments.of("failed against the same failure", failed, failed, List.of()),
        Arguments.of("failed against another failure, new errors allowed", failed, failedOther,
            List.of("--allow-new-errors", "--allow-new-warnings")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theCliGateAndBuildGateGiveTheSameVerdict(String name, BuildReport baseline, BuildReport current, List<String> options)
      throws IOException {
    Path b = dir.resolve(name.replaceAll("\\W+", "-") + ".baseline.json");
    Path c = dir.resolve(name.replaceAll("\\W+", "-") + ".current.json");
    baseline.write(b);
    current.write(c);
    List<String> args = new ArrayList<>(List.of("gate", b.toString(), c.toString()));
    args.addAll(options);
    Cli cli = Cli.run(args.toArray(String[]::new));
    BuildGate.GateResult lib = gate(options).check(BuildReport.read(c), BuildReport.read(b));
    assertThat(cli.code()).as(name + ": exit code vs passed()=" + lib.passed() + "\n" + cli.out() + cli.err())
        .isEqualTo(lib.passed() ? 0 : 1);
    assertThat(cli.out()).isEqualTo(lib.message() + "\n");
  }

  /** The library gate configured as the CLI options say (the CLI's defaults are BuildGate.builder()'s). */
  private static BuildGate gate(List<String> options) {
    BuildGate.Builder g = BuildGate.builder();
    for (int i = 0; i < options.size(); i++) {
      switch (options.get(i)) {
        case "--max-fusion-rate-drop" -> g.maxFusionRateDrop(Double.parseDouble(options.get(++i)));
        case "--max-memory-growth" -> g.maxMemoryGrowth(Double.parseDouble(options.get(++i)));
        case "--max-plan-growth" -> g.maxPlanGrowth(Double.parseDouble(options.get(++i)));
        case "--max-engine-layer-growth" -> g.maxEngineLayerGrowth(Integer.parseInt(options.get(++i)));
        case "--allow-new-warnings" -> g.allowNewWarnings(true);
        case "--allow-precision-fallbacks" -> g.allowPrecisionFallbacks(true);
        case "--allow-new-errors" -> g.allowNewErrors(true);
        default -> throw new IllegalArgumentException(options.get(i));
      }
    }
    return g.build();
  }
}
