package io.github.trtrace.tensorrt.model.build;

import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Why an engine build failed, in words an operator can act on. Works on plain data: the build's log
 * events and the errors an {@code IErrorRecorder} received (with a recorder attached TensorRT sends
 * errors there and not to the logger, so pass both).
 *
 * <p>Two moments are recognised: TensorRT 10.15 creates the builder and fails at {@code
 * buildSerializedNetwork} when the builder resource is missing; TensorRT 10.6 and 11.2 already fail at
 * {@code createInferBuilder}, which returns null (the error line starts with {@code createInferBuilder:}).
 * The summary names the moment. For TensorRT 10.16 and later (11.x included) the fix steps also offer
 * {@code nvinfer1::setInternalLibraryPath}, which tells TensorRT where its builder resources are.
 *
 * <pre>{@code
 * BuildFailureDiagnosis d = BuildFailureDiagnosis.diagnose(buildEvents, recordedErrors);
 * System.err.println(d.summary());
 * d.fixSteps().forEach(s -> System.err.println(" - " + s));
 * }</pre>
 *
 * @param cause the recognised cause
 * @param summary one paragraph: what failed and why
 * @param missingFile the file TensorRT needed and did not have (or had a wrong copy of), or null
 * @param fixSteps what to do, in order
 */
public record BuildFailureDiagnosis(Cause cause, String summary, @Nullable String missingFile, List<String> fixSteps) {

  /** Recognised causes. */
  public enum Cause {
    /** {@code libnvinfer_builder_resource_smNN} could not be loaded. */
    MISSING_BUILDER_RESOURCE("missing_builder_resource"),
    /** A builder resource was loaded but its kernel library failed validation. */
    INVALID_BUILDER_RESOURCE("invalid_builder_resource"),
    /** Anything else. */
    UNRECOGNISED("unrecognised");

    private final String wireName;

    Cause(String wireName) {
      this.wireName = wireName;
    }

    /** JSON value. */
    public String wireName() {
      return wireName;
    }

    static Cause fromWire(@Nullable String s) {
      for (Cause c : values()) {
        if (c.wireName.equals(s)) {
          return c;
        }
      }
      return UNRECOGNISED;
    }
  }

  // Real lines (fixtures): "IBuilder::buildSerializedNetwork: Error Code 6: API Usage Error (Unable to load
  // library: libnvinfer_builder_resource_sm90.so.10.15.1: ... cannot open shared object file ...)" (10.15) and
  // "createInferBuilder: Error Code 6: API Usage Error (Unable to load library:
  // libnvinfer_builder_resource_sm90.so.11.2.1: ...)" (11.2). The all-GPU name of 10.6
  // (libnvinfer_builder_resource.so.10.6.0, no _smNN) is accepted too; no real 10.6 line for it was captured.
  private static final Pattern UNABLE_TO_LOAD =
      Pattern.compile("Unable to load library: (libnvinfer_builder_resource(?:_(\\w+?))?\\.so\\.(\\d+(?:\\.\\d+)*))");
  private static final String AT_CREATION = "createInferBuilder";
  // Real lines (fixtures): "Loaded shared library libnvinfer_builder_resource_sm90.so.10.15.1", then
  // "... Error Code 2: Internal Error (Assertion validateCaskKLibSize(buffer.size) failed. Klib 0 failed validation ..."
  private static final Pattern LOADED =
      Pattern.compile("Loaded shared library (libnvinfer_builder_resource_(\\w+?)\\.so\\.(\\d+(?:\\.\\d+)*))");
  private static final Pattern KLIB_INVALID = Pattern.compile("Klib \\d+ failed validation");
  private static final Pattern SM = Pattern.compile("sm(\\d+)(\\d)");
  private static final int MAX_QUOTE = 300;

  public BuildFailureDiagnosis {
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(summary, "summary");
    fixSteps = List.copyOf(fixSteps);
  }

  /** Diagnoses a failed build from its log events and recorded errors (either may be empty). */
  public static BuildFailureDiagnosis diagnose(List<TrtLogEvent> events, List<RecordedError> recorded) {
    List<String> errors = new ArrayList<>();
    String loaded = null;
    for (TrtLogEvent e : events) {
      if (e.isError()) {
        errors.add(e.message());
      }
      Matcher m = LOADED.matcher(e.message());
      if (m.find()) {
        loaded = m.group(1);
      }
    }
    for (RecordedError r : recorded) {
      errors.add(r.description());
    }
    for (String text : errors) {
      Matcher m = UNABLE_TO_LOAD.matcher(text);
      if (m.find()) {
        return missingResource(m.group(1), m.group(2), m.group(3), text.startsWith(AT_CREATION));
      }
    }
    for (String text : errors) {
      if (KLIB_INVALID.matcher(text).find()) {
        return invalidResource(loaded, text);
      }
    }
    return unrecognised(errors);
  }

  private static BuildFailureDiagnosis missingResource(
      String file, @Nullable String arch, String trtVersion, boolean atBuilderCreation) {
    String cc = arch == null ? null : computeCapability(arch);
    String archText = arch == null ? "every GPU architecture"
        : cc == null ? arch : "compute capability " + cc + " (" + arch + ")";
    String major = trtVersion.split("\\.")[0];
    String what = atBuilderCreation
        ? "Creating the TensorRT builder failed (createInferBuilder returned null, as TensorRT 10.6 and 11.x do)"
        : "The engine build failed";
    String summary =
        what + " because TensorRT could not load " + file + ", the builder resource (kernel library) for "
            + archText + ". Building an engine needs it; running a built engine does not."
            + (arch == null ? ""
                : " The Maven artifact org.bytedeco:tensorrt (classifier linux-x86_64-redist) ships only"
                    + " libnvinfer.so." + major + " and the libnvinfer_builder_resource_ptx resource, not the"
                    + " per-architecture builder resources.");
    return new BuildFailureDiagnosis(Cause.MISSING_BUILDER_RESOURCE, summary, file,
        installSteps(file, trtVersion));
  }

  private static BuildFailureDiagnosis invalidResource(@Nullable String loaded, String error) {
    String file = loaded == null ? "libnvinfer_builder_resource_<arch>.so" : loaded;
    String summary =
        "The engine build failed because TensorRT loaded " + file + " but its kernel library failed"
            + " validation (\"" + quote(error) + "\"). The file is not the builder resource for this GPU"
            + " architecture and TensorRT version: for example the _ptx resource copied under the"
            + " architecture's name, or a file from another TensorRT release.";
    String version = loaded == null ? null : versionOf(loaded);
    List<String> steps = new ArrayList<>();
    steps.add("Remove or replace " + file + " (and any copy on LD_LIBRARY_PATH / java.library.path)"
        + " with the genuine file from the same TensorRT release as libnvinfer.");
    steps.addAll(installSteps(file, version == null ? "10.x" : version));
    return new BuildFailureDiagnosis(Cause.INVALID_BUILDER_RESOURCE, summary, file, steps);
  }

  private static List<String> installSteps(String file, String trtVersion) {
    String release = majorMinor(trtVersion);
    List<String> steps = new ArrayList<>();
    steps.add("Install TensorRT " + release + " from NVIDIA (tar archive or deb/rpm packages); it includes "
        + file + ".");
    steps.add("Put its lib directory on LD_LIBRARY_PATH (or -Djava.library.path) before the JVM starts, so"
        + " TensorRT finds " + file + " next to libnvinfer.");
    if (hasInternalLibraryPath(trtVersion)) {
      steps.add("Or, in TensorRT " + release + " (10.16 and later), call nvinfer1::setInternalLibraryPath(dir)"
          + " (JavaCPP: nvinfer.setInternalLibraryPath) with the directory holding " + file + " before"
          + " creating the builder; TensorRtDoctor --builder-resource-dir=<dir> checks it.");
    }
    steps.add("Or build the engine where TensorRT is installed (for example with trtexec --saveEngine) and"
        + " deploy the plan file: deserializing and running an engine needs only libnvinfer.");
    return steps;
  }

  /** Whether TensorRT {@code version} has {@code setInternalLibraryPath} (10.16 and later). */
  static boolean hasInternalLibraryPath(String version) {
    String[] p = version.split("\\.");
    try {
      int major = Integer.parseInt(p[0]);
      int minor = p.length > 1 ? Integer.parseInt(p[1]) : 0;
      return major > 10 || (major == 10 && minor >= 16);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static BuildFailureDiagnosis unrecognised(List<String> errors) {
    String summary =
        errors.isEmpty()
            ? "The engine build failed and TensorRT reported no error (no ERROR line and no recorded"
                + " error)."
            : "The engine build failed: " + quote(errors.get(0))
                + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more errors)" : "");
    return new BuildFailureDiagnosis(Cause.UNRECOGNISED, summary, null, List.of(
        "Read the errors in the build report, first one first: later errors often follow from it.",
        "Look at the VERBOSE lines the build scope captured just before the first error.",
        "If the error is unclear, rebuild with trtexec --verbose using the same flags to compare."));
  }

  /** {@code sm90} to {@code 9.0}, {@code sm100} to {@code 10.0}; null when not an SM name. */
  static @Nullable String computeCapability(String arch) {
    Matcher m = SM.matcher(arch);
    return m.matches() ? m.group(1) + "." + m.group(2) : null;
  }

  private static @Nullable String versionOf(String file) {
    Matcher m = Pattern.compile("\\.so\\.(\\d+(?:\\.\\d+)*)$").matcher(file);
    return m.find() ? m.group(1) : null;
  }

  private static String majorMinor(String version) {
    String[] parts = version.split("\\.");
    return parts.length >= 2 ? parts[0] + "." + parts[1] : version;
  }

  private static String quote(String s) {
    return s.length() <= MAX_QUOTE ? s : s.substring(0, MAX_QUOTE) + "...";
  }
}
