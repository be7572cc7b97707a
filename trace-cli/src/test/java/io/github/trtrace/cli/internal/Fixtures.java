package io.github.trtrace.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/** Captured logs and reports from the test resources, put where the CLI reads them and read back with Jackson. */
final class Fixtures {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private Fixtures() {}

  /** Copies {@code files} of resource folder {@code folder} into {@code dir}, as they are (gzipped stays gzipped). */
  static void copy(String folder, Path dir, String... files) throws IOException {
    for (String f : files) {
      try (InputStream in = open("/" + folder + "/" + f)) {
        Files.copy(in, dir.resolve(f));
      }
    }
  }

  /** The gzipped resource {@code resource} unzipped to {@code to} (replaced when there); returns {@code to}. */
  static Path gunzip(String resource, Path to) throws IOException {
    try (InputStream in = new GZIPInputStream(open(resource))) {
      Files.copy(in, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    return to;
  }

  /** Each line of the gzipped JSON-lines file {@code file}, parsed. */
  static List<JsonNode> gzipJsonLines(Path file) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8))) {
      for (String l; (l = r.readLine()) != null; ) {
        out.add(MAPPER.readTree(l));
      }
    }
    return out;
  }

  /** Whether the launch line {@code launch} lists {@code requestId} among its members (a kernels line lists none). */
  static boolean hasMember(JsonNode launch, String requestId) {
    if (!launch.has("members")) {
      return false;
    }
    for (JsonNode m : launch.get("members")) {
      if (m.get("request_id").asText().equals(requestId)) {
        return true;
      }
    }
    return false;
  }

  private static InputStream open(String resource) {
    InputStream in = Fixtures.class.getResourceAsStream(resource);
    if (in == null) {
      throw new UncheckedIOException(new IOException("no test resource " + resource));
    }
    return in;
  }
}
