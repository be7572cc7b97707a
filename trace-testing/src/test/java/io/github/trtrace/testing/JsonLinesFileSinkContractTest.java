package io.github.trtrace.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.core.sink.RecordSink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/** trace-core's JSON Lines file sink passes the sink contract; its own behaviour is tested in trace-core. */
class JsonLinesFileSinkContractTest extends RecordSinkContractTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("inference.log");
  }

  @Override
  protected RecordSink newSink() throws IOException {
    return JsonLinesFileSink.builder(file()).build();
  }

  /** The request IDs of the file's lines; each line must be one whole JSON object. */
  @Override
  protected List<String> writtenRequestIds(RecordSink sink) throws IOException {
    List<String> ids = new ArrayList<>();
    if (!Files.exists(file())) {
      return ids;
    }
    for (String line : Files.readAllLines(file(), StandardCharsets.UTF_8)) {
      ids.add(JSON.readTree(line).get("request_id").asText());
    }
    return ids;
  }
}
