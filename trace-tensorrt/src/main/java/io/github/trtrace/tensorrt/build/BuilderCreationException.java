package io.github.trtrace.tensorrt.build;

import io.github.trtrace.tensorrt.model.build.BuildReport;
import io.github.trtrace.tensorrt.model.build.BuildFailureDiagnosis;
import java.util.Objects;

/**
 * {@code createInferBuilder} returned null. TensorRT 10.6 and 11.x do so when the builder resource for the
 * GPU is missing (Error Code 6, "Unable to load library: libnvinfer_builder_resource_..."), where 10.15
 * creates the builder and fails at build time instead. Carries a failed {@link BuildReport} with the
 * lines TensorRT logged during the attempt and the {@link BuildFailureDiagnosis}.
 *
 * <pre>{@code
 * try (TracedBuilder tb = TracedBuilder.create(logger)) {
 *   ...
 * } catch (BuilderCreationException e) {
 *   e.report().write(Path.of("builder.build.json"));
 *   System.err.println(e.diagnosis().summary());
 * }
 * }</pre>
 */
public final class BuilderCreationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final transient BuildReport report;

  BuilderCreationException(BuildReport report) {
    super(message(report));
    this.report = Objects.requireNonNull(report, "report");
  }

  private static String message(BuildReport report) {
    BuildFailureDiagnosis d = report.diagnosis();
    return "createInferBuilder returned null: " + (d == null ? "TensorRT could not initialise" : d.summary());
  }

  /** The failed report: status {@code failed}, environment, captured log, errors, diagnosis. */
  public BuildReport report() {
    return report;
  }

  /** Why the builder could not be created and what to do. */
  public BuildFailureDiagnosis diagnosis() {
    BuildFailureDiagnosis d = report.diagnosis();
    return d != null ? d : BuildFailureDiagnosis.diagnose(java.util.List.of(), java.util.List.of());
  }
}
