package io.github.trtrace.tensorrt.model;

import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.model.log.TrtLogClassifier;
import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the real TensorRT output in {@code src/test/resources/fixtures} (see ORIGIN.md there). */
public final class Fixtures {
  public static final String MISSING_SM90 = "trt-10.15.1-h200-build-missing-sm90-resource.log";
  public static final String PTX_AS_SM90 = "trt-10.15.1-h200-build-ptx-as-sm90.log";
  public static final String RECORDER_SHIM = "trt-10.15.1-h200-error-recorder-shim.log";
  /** TensorRT 11.2.1 on the H200: createInferBuilder itself fails (Error Code 6), then junk deserialised. */
  public static final String TRT112_BUILDER_MISSING_SM90 = "trt-11.2.1-h200-builder-missing-sm90.txt";
  public static final List<String> LOG_FILES = List.of(MISSING_SM90, PTX_AS_SM90, RECORDER_SHIM);

  // "severity|thread|message"; the recorder probe prefixes logger records with "REC ".
  private static final Pattern LOG_LINE = Pattern.compile("^(?:REC )?(k[A-Z_]+)\\|([^|]*)\\|(.*)$");
  private static final Pattern RECORDED = Pattern.compile("^\\s+code=(\\d+) desc=(.*)$");

  /** One logger record of a fixture file. */
  public record Line(TrtSeverity severity, String thread, String message) {}

  private Fixtures() {}

  public static List<String> lines(String file) {
    try (InputStream in = Fixtures.class.getResourceAsStream("/fixtures/" + file)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource /fixtures/" + file);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static List<Line> logLines(String file) {
    List<Line> out = new ArrayList<>();
    for (String l : lines(file)) {
      Matcher m = LOG_LINE.matcher(l);
      if (m.matches()) {
        out.add(new Line(severity(m.group(1)), m.group(2), m.group(3)));
      }
    }
    return out;
  }

  public static List<RecordedError> recordedErrors(String file) {
    List<RecordedError> out = new ArrayList<>();
    for (String l : lines(file)) {
      Matcher m = RECORDED.matcher(l);
      if (m.matches()) {
        out.add(new RecordedError(Integer.parseInt(m.group(1)), m.group(2)));
      }
    }
    return out;
  }

  /** The fixture's logger records as events, as the pipeline would produce them (no redaction). */
  public static List<TrtLogEvent> events(String file) {
    List<TrtLogEvent> out = new ArrayList<>();
    long t = 1_780_000_000_000_000L;
    for (Line l : logLines(file)) {
      TrtLogClassifier.ErrorLine e = TrtLogClassifier.errorLine(l.message());
      out.add(new TrtLogEvent(l.severity(), TrtLogClassifier.classify(l.severity(), l.message()),
          e == null ? -1 : e.code(), e == null ? null : e.category(), l.message(), l.thread(), t++, null,
          "build:fixture"));
    }
    return out;
  }

  public static TrtSeverity severity(String k) {
    switch (k) {
      case "kINTERNAL_ERROR": return TrtSeverity.INTERNAL_ERROR;
      case "kERROR": return TrtSeverity.ERROR;
      case "kWARNING": return TrtSeverity.WARNING;
      case "kINFO": return TrtSeverity.INFO;
      case "kVERBOSE": return TrtSeverity.VERBOSE;
      default: throw new IllegalArgumentException("unknown severity " + k);
    }
  }
}
