package io.github.trtrace.core.sink;

import io.github.trtrace.core.json.RecordFixtures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;

/** Reads back what a {@link JsonLinesFileSink} wrote, strictly: whole lines only. */
final class JsonLinesTestFiles {
  private JsonLinesTestFiles() {}

  /** The lines of a plain or {@code .gz} file; fails if the content does not end with a line feed. */
  static List<String> lines(Path file) throws IOException {
    byte[] bytes;
    if (file.getFileName().toString().endsWith(".gz")) {
      try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
        bytes = in.readAllBytes();
      }
    } else {
      bytes = Files.readAllBytes(file);
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (text.isEmpty()) {
      return List.of();
    }
    if (!text.endsWith("\n")) {
      throw new AssertionError(file + " ends with a torn line: " + tail(text));
    }
    return new ArrayList<>(Arrays.asList(text.substring(0, text.length() - 1).split("\n", -1)));
  }

  /** Request IDs of the lines of {@code file}; every line must be a complete JSON object. */
  static List<String> requestIds(Path file) throws IOException {
    List<String> ids = new ArrayList<>();
    for (String line : lines(file)) {
      ids.add(RecordFixtures.parse(line).get("request_id").asText());
    }
    return ids;
  }

  private static String tail(String text) {
    return text.substring(Math.max(0, text.length() - 80));
  }
}
