package io.github.trtrace.tensorrt;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The messages of the real TensorRT log captures kept in trace-tensorrt-model's {@code src/test/resources/fixtures}
 * (this module's pom adds them to its test resources; ORIGIN.md there says where each came from).
 */
public final class LogFixtures {
  public static final String MISSING_SM90 = "trt-10.15.1-h200-build-missing-sm90-resource.log";
  public static final String PTX_AS_SM90 = "trt-10.15.1-h200-build-ptx-as-sm90.log";

  // "severity|thread|message"; the recorder probe prefixes logger records with "REC ".
  private static final Pattern LOG_LINE = Pattern.compile("^(?:REC )?(k[A-Z_]+)\\|([^|]*)\\|(.*)$");

  private LogFixtures() {}

  /** The messages of the fixture's logger records, in order. */
  public static List<String> messages(String file) {
    try (InputStream in = LogFixtures.class.getResourceAsStream("/fixtures/" + file)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource /fixtures/" + file);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
          .map(LOG_LINE::matcher).filter(Matcher::matches).map(m -> m.group(3)).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
