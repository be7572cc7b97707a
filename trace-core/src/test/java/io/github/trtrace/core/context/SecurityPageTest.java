package io.github.trtrace.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What SECURITY.md says of a rejected request ID is what the record holds (issue 19 item 9). */
class SecurityPageTest {

  @Test
  void theRejectedIdLengthOnTheSecurityPageIsTheLongestRejectedValue() throws IOException {
    String page = Files.readString(Path.of("..", "SECURITY.md"));
    Matcher m = Pattern.compile("a rejected value is kept only sanitized .{0,40}? and cut to (?:at most )?(\\d+) char")
        .matcher(page);
    assertThat(m.find()).as("SECURITY.md states the rejected value's length").isTrue();
    int stated = Integer.parseInt(m.group(1));

    String longest = RequestIds.accept("x\u0000".repeat(500)).rejectedValue();
    assertThat(longest).endsWith("\u2026");
    assertThat(longest.length()).as("longest rejected value vs SECURITY.md").isEqualTo(stated);
  }
}
