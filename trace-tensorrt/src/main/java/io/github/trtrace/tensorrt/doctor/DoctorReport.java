package io.github.trtrace.tensorrt.doctor;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The doctor's findings (and the facts they were derived from), as aligned text for a terminal and as
 * JSON.
 *
 * <pre>{@code
 * DoctorReport report = DoctorReport.evaluate(facts);   // or TensorRtDoctor.report(), which probes first
 * System.out.println(report.toText());
 * System.exit(report.worst() == DoctorReport.Status.FAIL ? 1 : 0);
 * }</pre>
 */
public final class DoctorReport {

  /** Outcome of one check, from best to worst except SKIP. */
  public enum Status {
    OK,
    SKIP,
    WARN,
    FAIL
  }

  /**
   * One check's result.
   *
   * @param check short name, e.g. {@code tensorrt}
   * @param status outcome
   * @param detail what was found
   * @param advice what to do, or null when nothing
   */
  public record Finding(String check, Status status, String detail, @Nullable String advice) {
    public Finding {
      Objects.requireNonNull(check, "check");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(detail, "detail");
    }
  }

  private static final JsonFactory JSON = JsonFactory.builder().build();

  private final @Nullable DoctorFacts facts;
  private final List<Finding> findings;

  private DoctorReport(@Nullable DoctorFacts facts, List<Finding> findings) {
    this.facts = facts;
    this.findings = List.copyOf(findings);
  }

  /**
   * What {@code facts} mean: every rule of the doctor, in the order platform, tensorrt, cuda, gpu, builder_resource,
   * builder_creation, nvml, native_shim, each a finding with advice. Pure: probes nothing.
   */
  public static DoctorReport evaluate(DoctorFacts facts) {
    return DoctorAdvice.evaluate(facts);
  }

  /** A report of {@code findings}, in order, without facts. */
  public static DoctorReport of(List<Finding> findings) {
    return new DoctorReport(null, Objects.requireNonNull(findings, "findings"));
  }

  /** A report of {@code findings}, in order, derived from {@code facts}. */
  public static DoctorReport of(DoctorFacts facts, List<Finding> findings) {
    return new DoctorReport(Objects.requireNonNull(facts, "facts"), Objects.requireNonNull(findings, "findings"));
  }

  /** The facts the findings were derived from, or null when the report was made from findings alone. */
  public @Nullable DoctorFacts facts() {
    return facts;
  }

  /** The findings, in check order. */
  public List<Finding> findings() {
    return findings;
  }

  /** The process exit code for {@link #worst()}: 0 for OK (and SKIP), 1 for WARN, 2 for FAIL. */
  public int exitCode() {
    return switch (worst()) {
      case OK, SKIP -> 0;
      case WARN -> 1;
      case FAIL -> 2;
    };
  }

  /** The worst status (FAIL over WARN over SKIP over OK); OK when empty. */
  public Status worst() {
    Status w = Status.OK;
    for (Finding f : findings) {
      if (f.status().compareTo(w) > 0) {
        w = f.status();
      }
    }
    return w;
  }

  /** Aligned text: status and check columns padded, advice on an indented line below. */
  public String toText() {
    int width = 0;
    for (Finding f : findings) {
      width = Math.max(width, f.check().length());
    }
    StringBuilder sb = new StringBuilder();
    for (Finding f : findings) {
      sb.append(String.format("[%-4s] %-" + Math.max(1, width) + "s  %s%n", f.status(), f.check(), f.detail()));
      if (f.advice() != null) {
        sb.append(" ".repeat(9 + width)).append("-> ").append(f.advice()).append(System.lineSeparator());
      }
    }
    sb.append("overall: ").append(worst());
    return sb.toString();
  }

  /**
   * JSON: {@code {"overall":"OK","facts":{...},"findings":[{"check","status","detail","advice"}]}}; {@code
   * facts} (java_version, platform, tensorrt, cuda, gpus, builder_resource, nvml, native_shim) is present
   * when the report was derived from facts.
   */
  public String toJson() {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(w)) {
      g.writeStartObject();
      g.writeStringField("overall", worst().name());
      if (facts != null) {
        writeFacts(g, facts);
      }
      g.writeArrayFieldStart("findings");
      for (Finding f : findings) {
        g.writeStartObject();
        g.writeStringField("check", f.check());
        g.writeStringField("status", f.status().name());
        g.writeStringField("detail", f.detail());
        g.writeStringField("advice", f.advice());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return w.toString();
  }

  private static void writeFacts(JsonGenerator g, DoctorFacts f) throws IOException {
    g.writeObjectFieldStart("facts");
    g.writeStringField("java_version", f.javaVersion());
    g.writeStringField("platform", f.platform());
    g.writeObjectFieldStart("tensorrt");
    g.writeStringField("version", f.tensorrtVersion());
    g.writeStringField("load_error", f.tensorrtLoadError());
    g.writeEndObject();
    g.writeObjectFieldStart("cuda");
    g.writeNumberField("runtime_version", f.cudaRuntimeVersion());
    g.writeNumberField("driver_version", f.cudaDriverVersion());
    g.writeStringField("nvidia_driver", f.driverVersion());
    g.writeStringField("error", f.cudaError());
    g.writeEndObject();
    g.writeArrayFieldStart("gpus");
    for (DoctorFacts.Gpu gpu : f.gpus()) {
      g.writeStartObject();
      g.writeNumberField("index", gpu.index());
      g.writeStringField("name", gpu.name());
      g.writeStringField("compute_capability", gpu.computeCapability());
      g.writeStringField("sm", gpu.sm());
      g.writeNumberField("memory_mib", gpu.memoryMiB());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeObjectFieldStart("builder_resource");
    g.writeStringField("file", f.builderResourceFile());
    writeBoolean(g, "present", f.builderResourcePresent());
    g.writeStringField("path", f.builderResourcePath());
    g.writeArrayFieldStart("searched");
    for (String dir : f.builderResourceSearched()) {
      g.writeString(dir);
    }
    g.writeEndArray();
    g.writeStringField("load_error", f.builderResourceLoadError());
    writeBoolean(g, "internal_library_path_api", f.internalLibraryPathApi());
    g.writeStringField("internal_library_path", f.internalLibraryPath());
    writeBoolean(g, "internal_library_path_accepted", f.internalLibraryPathAccepted());
    g.writeEndObject();
    g.writeObjectFieldStart("builder_creation");
    writeBoolean(g, "created", f.builderCreated());
    g.writeStringField("error", f.builderCreationError());
    if (Double.isFinite(f.builderCreationMs())) {
      g.writeNumberField("ms", f.builderCreationMs());
    } else {
      g.writeNullField("ms");
    }
    g.writeEndObject();
    g.writeObjectFieldStart("nvml");
    writeBoolean(g, "available", f.nvmlAvailable());
    g.writeStringField("detail", f.nvmlDetail());
    g.writeEndObject();
    g.writeObjectFieldStart("native_shim");
    writeBoolean(g, "loadable", f.nativeShimLoadable());
    g.writeStringField("detail", f.nativeShimDetail());
    g.writeEndObject();
    g.writeEndObject();
  }

  private static void writeBoolean(JsonGenerator g, String name, @Nullable Boolean value) throws IOException {
    if (value == null) {
      g.writeNullField(name);
    } else {
      g.writeBooleanField(name, value);
    }
  }

  @Override
  public String toString() {
    return toText();
  }
}
