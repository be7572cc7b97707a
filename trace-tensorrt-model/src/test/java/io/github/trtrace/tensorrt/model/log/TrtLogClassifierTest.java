package io.github.trtrace.tensorrt.model.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.tensorrt.model.Fixtures;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

class TrtLogClassifierTest {

  /** Every distinct message of the H200 fixtures (TensorRT 10.15.1) and the kind it must get. */
  private static final Map<String, TrtLogKind> FIXTURE_EXPECTED = new LinkedHashMap<>();

  static {
    FIXTURE_EXPECTED.put("[MemUsageChange] Init CUDA", TrtLogKind.MEMORY_USAGE);
    FIXTURE_EXPECTED.put("CUDA lazy loading is enabled.", TrtLogKind.CUDA_INIT);
    FIXTURE_EXPECTED.put("could not open /sys/fs/cgroup/memory", TrtLogKind.OTHER);
    FIXTURE_EXPECTED.put("Lowering maximum device shared memory", TrtLogKind.CUDA_INIT);
    FIXTURE_EXPECTED.put("Trying to load shared library libnvinfer_builder_resource_sm90", TrtLogKind.BUILDER_RESOURCE);
    FIXTURE_EXPECTED.put("Loaded shared library libnvinfer_builder_resource_sm90", TrtLogKind.BUILDER_RESOURCE);
    FIXTURE_EXPECTED.put("IBuilder::buildSerializedNetwork: Error Code 6", TrtLogKind.BUILDER_RESOURCE);
    FIXTURE_EXPECTED.put("[builder.cpp::createCaskKernelLibraryImpl::418] Error Code 2", TrtLogKind.INTERNAL_ERROR);
    FIXTURE_EXPECTED.put("Loaded engine size: 0 MiB", TrtLogKind.SERIALIZATION);
  }

  @Test
  void everyFixtureLineGetsItsExpectedKind() {
    int checked = 0;
    for (String file : Fixtures.LOG_FILES) {
      for (Fixtures.Line line : Fixtures.logLines(file)) {
        TrtLogKind expected = expectedFor(line.message());
        assertThat(TrtLogClassifier.classify(line.severity(), line.message()))
            .as("%s: %s", file, line.message())
            .isEqualTo(expected);
        checked++;
      }
    }
    assertThat(checked).as("fixture logger records parsed").isEqualTo(6 + 6 + 2);
  }

  @Test
  void recordedErrorDescriptionsFromTheShimAreClassifiedByContentAndCategory() {
    List<RecordedError> recorded = Fixtures.recordedErrors(Fixtures.RECORDER_SHIM);
    assertThat(recorded).extracting(RecordedError::code).containsExactly(6, 1);
    assertThat(TrtLogClassifier.classify(TrtSeverity.ERROR, recorded.get(0).description()))
        .isEqualTo(TrtLogKind.BUILDER_RESOURCE);
    assertThat(TrtLogClassifier.classify(TrtSeverity.ERROR, recorded.get(1).description()))
        .isEqualTo(TrtLogKind.SERIALIZATION);
  }

  @Test
  void errorCodeAndCategoryAreParsedFromRealLines() {
    String build = Fixtures.logLines(Fixtures.MISSING_SM90).get(5).message();
    assertThat(TrtLogClassifier.errorLine(build)).isEqualTo(new TrtLogClassifier.ErrorLine(6, "API Usage Error"));
    String klib = Fixtures.logLines(Fixtures.PTX_AS_SM90).get(5).message();
    assertThat(TrtLogClassifier.errorLine(klib)).isEqualTo(new TrtLogClassifier.ErrorLine(2, "Internal Error"));
    String serialization = Fixtures.recordedErrors(Fixtures.RECORDER_SHIM).get(1).description();
    assertThat(TrtLogClassifier.errorLine(serialization)).isEqualTo(new TrtLogClassifier.ErrorLine(1, "Serialization"));
    assertThat(TrtLogClassifier.errorLine("CUDA lazy loading is enabled.")).isNull();
    assertThat(TrtErrorCode.fromCode(6)).isEqualTo(TrtErrorCode.FAILED_INITIALIZATION);
    assertThat(TrtErrorCode.fromCode(99)).isEqualTo(TrtErrorCode.UNKNOWN);
  }

  @Test
  void linesQuotedInPublicIssuesGetTheirKind() {
    List<String> lines = Fixtures.lines("public-issue-lines.txt");
    Set<TrtLogKind> covered = EnumSet.noneOf(TrtLogKind.class);
    List<String> checked = new ArrayList<>();
    for (String l : lines) {
      if (l.startsWith("#") || l.isBlank()) {
        continue;
      }
      String[] f = l.split("\\|", 3);
      String rest = f[2];
      String message = rest.substring(0, rest.lastIndexOf("|http"));
      TrtLogKind expected = TrtLogKind.valueOf(f[0]);
      assertThat(TrtLogClassifier.classify(Fixtures.severity(f[1]), message)).as(message).isEqualTo(expected);
      covered.add(expected);
      checked.add(message);
    }
    assertThat(checked).hasSize(12);
    assertThat(covered).contains(TrtLogKind.FUSION, TrtLogKind.PLUGIN, TrtLogKind.TACTIC_SELECTION,
        TrtLogKind.OUT_OF_MEMORY, TrtLogKind.PRECISION, TrtLogKind.API_USAGE_ERROR);
  }

  @Test
  void everyKindHasAtLeastOneRealLine() {
    Set<TrtLogKind> covered = EnumSet.noneOf(TrtLogKind.class);
    covered.addAll(FIXTURE_EXPECTED.values());
    for (String l : Fixtures.lines("public-issue-lines.txt")) {
      if (!l.startsWith("#") && !l.isBlank()) {
        covered.add(TrtLogKind.valueOf(l.substring(0, l.indexOf('|'))));
      }
    }
    assertThat(covered).containsExactlyInAnyOrder(TrtLogKind.values());
  }

  @Test
  void wireNamesAreSnakeCaseAndEventKindsArePrefixed() {
    for (TrtLogKind k : TrtLogKind.values()) {
      assertThat(k.wireName()).matches("[a-z_]+").isEqualTo(k.name().toLowerCase(java.util.Locale.ROOT));
      assertThat(k.eventKind()).isEqualTo("tensorrt." + k.wireName());
    }
  }

  @Test
  void severityCodesMatchTensorRtAndOutOfRangeCodesAreSanitized() {
    assertThat(TrtSeverity.fromCode(0)).isEqualTo(TrtSeverity.INTERNAL_ERROR);
    assertThat(TrtSeverity.fromCode(2)).isEqualTo(TrtSeverity.WARNING);
    assertThat(TrtSeverity.fromCode(4)).isEqualTo(TrtSeverity.VERBOSE);
    assertThat(TrtSeverity.fromCode(-3)).isEqualTo(TrtSeverity.INTERNAL_ERROR);
    assertThat(TrtSeverity.fromCode(9)).isEqualTo(TrtSeverity.VERBOSE);
    assertThat(TrtSeverity.ERROR.isAtLeast(TrtSeverity.WARNING)).isTrue();
    assertThat(TrtSeverity.INFO.isAtLeast(TrtSeverity.WARNING)).isFalse();
  }

  @Test
  @Disabled("Missing evidence: no real kINTERNAL_ERROR-severity line (TensorRT 10.15 logged its internal"
      + " errors at kERROR with 'Error Code 2: Internal Error' in our captures), and no TensorRT 10.15"
      + " FUSION/TACTIC_SELECTION/PRECISION/PLUGIN lines: a build cannot succeed on the H200 with the"
      + " Maven redist jar, so those rules rest on lines from public issues of older TensorRT versions")
  void tensorRt1015LinesForOptimiserKinds() {
    // Add the real lines here once a successful VERBOSE build on a TensorRT install is captured.
  }

  private static TrtLogKind expectedFor(String message) {
    for (Map.Entry<String, TrtLogKind> e : FIXTURE_EXPECTED.entrySet()) {
      if (message.startsWith(e.getKey())) {
        return e.getValue();
      }
    }
    throw new AssertionError("fixture line without an expected kind (add one): " + message);
  }
}
