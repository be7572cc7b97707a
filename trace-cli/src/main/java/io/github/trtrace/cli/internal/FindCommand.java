package io.github.trtrace.cli.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.core.RecordConvention;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code trtrace find <request-id> [paths...]}. */
@Command(name = "find", mixinStandardHelpOptions = true,
    header = "One request's timeline: record, stages, TensorRT events, flags.",
    description = {
      "One request's full timeline: the record, its stages as a text waterfall, TensorRT events, flags.",
      "Matches request_id exactly (api-demo-5 does not match api-demo-50). Reads rotated and gzipped",
      "files; directories are expanded. Exit code 1 when the request is not found."})
public final class FindCommand extends LogCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "REQUEST_ID", description = "The request ID, exactly as logged.")
  String requestId = "";

  @Parameters(index = "1..*", paramLabel = "PATH", arity = "0..*", description = "Log files or directories (default: logs/).")
  List<Path> paths = new ArrayList<>();

  @Option(names = "--json", description = "Print the matching JSON lines as they are, instead of the timeline.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    List<Path> files = files(paths);
    JsonFactory factory = new JsonFactory();
    ObjectMapper mapper = new ObjectMapper();
    List<String> found = new ArrayList<>();
    TreeSet<String> similar = new TreeSet<>();
    LaunchParser launches = new LaunchParser();
    LineReader.Summary read = LineReader.read(files, (buf, off, len, file, lineNo) -> {
      String id;
      try {
        id = requestIdOf(factory, buf, off, len);
      } catch (IOException e) {
        return "invalid JSON: " + e.getMessage();
      }
      if (id == null) {
        return launches.isLaunch(buf, off, len) ? LineReader.LAUNCH : "no request_id";
      }
      if (id.equals(requestId)) {
        String line = new String(buf, off, len, StandardCharsets.UTF_8);
        if (json) {
          found.add(line);
        } else {
          try {
            found.add(Timeline.render(mapper.readTree(line), file + ":" + lineNo));
          } catch (IOException e) {
            return "invalid JSON: " + e.getMessage();
          }
        }
      } else if (similar.size() < 5 && (id.startsWith(requestId) || requestId.startsWith(id)) && !id.isEmpty()) {
        similar.add(id);
      }
      return null;
    }, showProgress());
    for (String f : found) {
      out.println(f);
    }
    out.flush();
    if (found.isEmpty()) {
      err.println("trtrace find: request " + Fmt.visible(requestId) + " not found (" + read.describe() + ")");
      if (!similar.isEmpty()) {
        err.println("  IDs that start alike (not matched; IDs match exactly): "
            + String.join(", ", similar.stream().map(Fmt::visible).toList()));
      }
      return 1;
    }
    if (found.size() > 1) {
      err.println("trtrace find: " + found.size() + " records carry request ID " + Fmt.visible(requestId));
    }
    if (read.skippedAny()) { // on stderr: the record on stdout stays as it is
      err.println("trtrace find: read " + read.describe());
    }
    return 0;
  }

  /**
   * The top-level {@code request_id} of a JSON object line, reading only as far as that field;
   * null when the line has none.
   */
  static @Nullable String requestIdOf(JsonFactory factory, byte[] buf, int off, int len) throws IOException {
    try (JsonParser p = factory.createParser(buf, off, len)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        boolean match = RecordConvention.REQUEST_ID.equals(p.currentName());
        JsonToken t = p.nextToken();
        if (match) {
          return t == JsonToken.VALUE_STRING ? p.getText() : null;
        }
        p.skipChildren();
      }
      return null;
    }
  }
}
