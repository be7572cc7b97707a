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
 * The doctor's findings, as aligned text for a terminal and as JSON.
 *
 * <pre>{@code
 * DoctorReport report = DoctorAdvice.evaluate(facts);
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

  private final List<Finding> findings;

  private DoctorReport(List<Finding> findings) {
    this.findings = List.copyOf(findings);
  }

  /** A report of {@code findings}, in order. */
  public static DoctorReport of(List<Finding> findings) {
    return new DoctorReport(Objects.requireNonNull(findings, "findings"));
  }

  /** The findings, in check order. */
  public List<Finding> findings() {
    return findings;
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

  /** JSON: {@code {"overall":"OK","findings":[{"check","status","detail","advice"}]}}. */
  public String toJson() {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(w)) {
      g.writeStartObject();
      g.writeStringField("overall", worst().name());
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

  @Override
  public String toString() {
    return toText();
  }
}
